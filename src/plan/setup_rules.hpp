#pragma once
// What each training-setup choice changes, one rule per choice (the setup's vocabulary is in
// setup.hpp, its spellings in options.hpp). Memory, activations and cost read these and nothing
// else about precision, optimizer or loss.
#include <cstdint>

#include "graph/graph.hpp"
#include "plan/setup.hpp"

namespace neurarch::plan {

/// Precision: bytes of a trained parameter (and of its gradient), of what matmuls emit, of a frozen
/// 16-bit base, and whether autocast keeps 16-bit copies of fp32 weights and casts inputs.
struct PrecisionRule {
  int parameter_bytes;  ///< master weights of a full fine-tune; their gradients have the same dtype
  int compute_bytes;    ///< matmul outputs and the activations they feed
  int frozen_base_bytes;  ///< a LoRA base (frozen, in the half dtype the job loads)
  bool autocast;        ///< torch.autocast is on
};
PrecisionRule precision_rule(Precision p);
/// Bytes per element of the model's own parameters as the step holds them: a full fine-tune's master weights, else
/// the frozen base's load dtype (embeddings, norm weights and layer scales of a LoRA base).
int model_parameter_bytes(const Setup& s);
/// Bytes per element of what matmuls emit and the activations they feed: the autocast dtype, else the dtype the model
/// runs in (model_parameter_bytes).
int compute_bytes(const Setup& s);

/// Bytes of a LoRA/DoRA adapter parameter and its gradient: PEFT up-casts to fp32, torchtune and
/// litgpt keep the base dtype.
int adapter_bytes(const Setup& s);

/// A 4-bit NF4 base (QLoRA): bytes per stored weight, and the bytes per weight that exist while one
/// weight is dequantized for a matmul (forward, and again for the input gradient in backward).
struct QuantizedBaseRule {
  double bytes_per_weight;
  int dequant_bytes;
};
QuantizedBaseRule quantized_base_rule(const Setup& s);

/// The optimizer's memory for one trainable tensor of `elements` values stored in `parameter_bytes`.
struct OptimizerMemory {
  std::int64_t state = 0;        ///< persistent state (moments, factored statistics, momentum)
  std::int64_t temporaries = 0;  ///< the step's working copies for this tensor
};
OptimizerMemory optimizer_memory(Optimizer o, const graph::Shape& shape, std::int64_t elements, int parameter_bytes);

/// Whether a tensor's state lives in CUDA managed memory (bitsandbytes' paged optimizers, tensors of
/// 1e5 values and more): on the device, but outside torch.cuda.max_memory_allocated.
bool optimizer_state_paged(Optimizer o, std::int64_t elements);
/// `none`: forward and backward only, no optimizer phase.
bool has_optimizer_step(Optimizer o);
/// Whether a step's temporaries are for the whole parameter group at once (multi-tensor/foreach)
/// or for one tensor at a time (a for-loop: transformers' AdamW and Adafactor, torch < 2.0).
bool temporaries_per_group(const Setup& s);

/// Bytes of optimizer traffic per updated parameter (cost model).
double optimizer_traffic_bytes(Optimizer o, int parameter_bytes);

/// The logits and loss buffers of a language-model head for `tokens` tokens (the whole step's) over
/// a vocabulary of `vocab` at `compute_bytes`.
struct LossMemory {
  std::int64_t logits = 0;          ///< head output kept until the step ends
  std::int64_t saved = 0;           ///< what the loss keeps for backward (log-probabilities)
  std::int64_t forward_transient = 0;  ///< up-casts and shifted copies while the loss runs
  /// What the loss's own backward holds at its widest, its saved tensors included; the head's weight gradient
  /// does not exist yet.
  std::int64_t backward = 0;
  /// The logits' gradient as the head's backward reads it, beside the head's weight gradient.
  std::int64_t head_gradient = 0;
};
LossMemory loss_memory(const Setup& s, std::int64_t tokens, std::int64_t vocab, int compute_bytes);

}  // namespace neurarch::plan
