#pragma once
// What the user plans to run: the training setup every memory and cost figure depends on.
#include <cstdint>
#include <string>
#include <vector>

namespace neurarch::plan {

enum class Mode { Full, LoRA, QLoRA };
enum class Optimizer { AdamW, AdamWFused, SGDMomentum, Adam8bit };
enum class AttentionImpl { SDPA, Eager };

struct Setup {
  Mode mode = Mode::Full;
  Optimizer optimizer = Optimizer::AdamW;
  AttentionImpl attention = AttentionImpl::SDPA;
  bool autocast_bf16 = true;  ///< false: plain fp32 training (no cast copies, fp32 activations)
  std::int64_t batch = 1;
  bool grad_checkpointing = false;
  std::int64_t lora_rank = 16;
  double lora_dropout = 0.05;
  /// Bytes per element of a dropout's saved mask: CUDA's fused dropout keeps a bool mask (1); 0: the
  /// CPU path, which keeps noise in the dropped tensor's dtype (data/runtime-cpu.json).
  int dropout_mask_bytes = 1;
  /// SDPA with attention dropout has no fused kernel (the CPU): its math path keeps the scores.
  bool sdpa_dropout_runs_math = false;
  /// Leaf module names to adapt ("q_proj", "query", "c_attn"); empty: every linear but the head.
  std::vector<std::string> lora_targets;
};

const char* mode_name(Mode m);
const char* optimizer_name(Optimizer o);

}  // namespace neurarch::plan
