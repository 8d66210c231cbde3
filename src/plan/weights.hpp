#pragma once
// Which of the graph's tensors are matmul weights (autocast copies them), heads, and LoRA targets.
#include <cstdint>
#include <vector>

#include "graph/graph.hpp"
#include "plan/setup.hpp"

namespace neurarch::plan {

struct WeightRole {
  int tensor = -1;
  bool matmul = false;       ///< used by linear/conv: autocast keeps a bf16 copy for backward
  bool head = false;         ///< LM head or classifier
  bool lora_target = false;  ///< gets an adapter under LoRA/QLoRA
  std::int64_t lora_parameters = 0;  ///< rank x (in + out)
};

/// One entry per tensor of the graph (tied aliases included: a tied head still uses its weight).
std::vector<WeightRole> weight_roles(const graph::Graph& g, const Setup& s);

/// "model.layers.0.self_attn.q_proj.weight" -> "q_proj"
std::string leaf_module(const std::string& tensor_name);

}  // namespace neurarch::plan
