#pragma once
// AIMv2's towers (models/aimv2/modeling_aimv2.py, transformers 4.57.6), shared by Aimv2VisionModel and Aimv2Model.
// Both use one encoder: pre-RMSNorm layers (rms_norm1/2) with attention projections biased only when qkv_bias
// (out_proj included) and a SwiGLU ffn (gate/up/down_proj) biased only when mlp_bias, then a final rms_norm.
// The vision stem is a biased patch Conv2d followed by an RMSNorm, plus a learned position table, or, when
// is_native, 2-D sin-cos positions computed for whatever image comes in. The vision pooler is an attention
// probe (head: a learned cls_token queries k_proj/v_proj of the sequence, then output_proj).
#include <cstdint>
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::aimv2 {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

struct Tower {
  Value sequence;  ///< last_hidden_state (after the final rms_norm)
  Value pooled;    ///< pooler_output: [hidden]; the sequence itself when the vision tower has no head
  std::int64_t hidden = 0;
};

/// What a vision transformer copied from AIMv2's renames or leaves out (Ovis2's: modular_ovis2.py derives it from
/// Aimv2's, with the stem's conv named patch_embedding and no attention-probe head).
struct VisionVariant {
  std::string_view patch_module = "patch_embed";
  bool head = true;  ///< the attention-probe head, when the config's use_head (default true) asks for it
};

/// Aimv2VisionModel's modules under `root` ("" alone, "vision_model" inside Aimv2Model).
Tower vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root,
                   const VisionVariant& v = {});
/// Aimv2TextModel's modules under `root`.
Tower text_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root);

}  // namespace neurarch::families::aimv2
