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
  /// The tensor itself gets a gradient and optimizer state: every parameter under a full fine-tune, a
  /// classifier under LoRA (PEFT's modules_to_save); never one the reference freezes.
  bool trained = false;
  bool lora_target = false;  ///< gets an adapter under LoRA/QLoRA
  /// Stored as 4-bit NF4 under QLoRA: a linear's 2-D weight (not a convolution's), the head only with
  /// Setup::quantize_head. bitsandbytes' MatMul4Bit keeps its input for backward and dequantizes it.
  bool quantized = false;
  std::int64_t lora_parameters = 0;  ///< rank x (in + out), plus DoRA's magnitude
  std::int64_t dora_parameters = 0;  ///< DoRA's magnitude vector (out)
  /// Held but not run on this input (graph::Operand::Idle, X-MOD's other languages' adapters): it requires a
  /// gradient and counts as trainable, but backward never reaches it, so it gets no gradient, no optimizer state
  /// (torch's optimizers skip a parameter whose .grad is None) and no autocast copy.
  bool idle = false;
};

/// One entry per tensor of the graph (tied aliases included: a tied head still uses its weight).
std::vector<WeightRole> weight_roles(const graph::Graph& g, const Setup& s);

/// Per node: whether autograd records it, i.e. it owns a parameter that is not frozen or reads a node
/// that is recorded. Nodes upstream of every such parameter (pixels through DETR's frozen stem) keep
/// nothing for backward and run no backward. LoRA's frozen base weights count as recorded here: the
/// few norms before the first adapter are kept (a small overcount, never an undercount).
std::vector<bool> recorded_by_autograd(const graph::Graph& g);

/// "model.layers.0.self_attn.q_proj.weight" -> "q_proj"
std::string leaf_module(const std::string& tensor_name);

}  // namespace neurarch::plan
