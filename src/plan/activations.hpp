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
  std::int64_t bytes_per_sample() const;
};

/// Language-model logits and the loss over them, per sample (setup_rules.cpp's loss_memory at batch 1;
/// the memory timeline recomputes them for the step's tokens, which chunked losses need).
struct LogitsTerms {
  std::int64_t tokens = 0;  ///< per sample, summed over heads
  std::int64_t vocab = 0;   ///< the widest head's output
  int compute_bytes = 2;
  std::int64_t logits_bytes = 0;          ///< model output kept until the step ends (compute dtype)
  std::int64_t log_softmax_bytes = 0;     ///< fp32 log-probabilities saved for the loss's backward
  std::int64_t loss_transient_bytes = 0;  ///< fp32 up-cast of half logits while the loss is computed
  std::int64_t logits_grad_bytes = 0;     ///< fp32 + compute-dtype gradients at the start of backward
};

struct ActivationModel {
  std::vector<NodeActivations> nodes;  ///< one per graph node, in graph order
  LogitsTerms logits;
  std::vector<std::string> notes;      ///< what the user should know (LoRA dropout copies, eager scores)
};

ActivationModel saved_activations(const graph::Graph& g, const Setup& s, const std::vector<WeightRole>& roles);

}  // namespace neurarch::plan
