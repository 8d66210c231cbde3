#pragma once
// What autograd keeps for backward, node by node, per sample. Each rule names the tensors the
// PyTorch op saves (each op's rule, with its sources, in plan/ops/); the memory planner multiplies by the
// batch and rounds each tensor as the CUDA allocator does.
#include <cstdint>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "plan/setup.hpp"
#include "plan/setup_rules.hpp"
#include "plan/weights.hpp"

namespace neurarch::plan {

struct SavedTensor {
  std::string what;           ///< "q/k/v projections' input (bf16 casts)", "softmax probabilities", ...
  std::int64_t elements = 0;  ///< per sample
  int bytes_per_element = 0;
  std::int64_t bytes(std::int64_t batch) const { return elements * batch * bytes_per_element; }
};

struct NodeActivations {
  int node = -1;
  std::vector<SavedTensor> saved;
  /// What the op allocates only while it runs, per sample (its schema's transients; none in backward when autograd
  /// records no graph through it).
  std::int64_t forward_transient = 0;
  std::int64_t backward_transient = 0;
  std::int64_t gradients_after = 0;  ///< per step: weight gradients made after the backward transient's moment
  std::int64_t bytes_per_sample() const;
};

/// What sizes the language-model logits and the loss over them (setup_rules.cpp's loss_memory, which the memory
/// timeline applies to the step's tokens: chunked losses depend on them).
struct LogitsTerms {
  std::int64_t tokens = 0;  ///< per sample, summed over heads
  std::int64_t vocab = 0;   ///< the widest head's output
  int compute_bytes = 2;
};

struct ActivationModel {
  std::vector<NodeActivations> nodes;  ///< one per graph node, in graph order
  LogitsTerms logits;
  std::vector<std::string> notes;      ///< what the user should know (LoRA dropout copies, eager scores)
};

ActivationModel saved_activations(const graph::Graph& g, const Setup& s, const std::vector<WeightRole>& roles);

}  // namespace neurarch::plan
