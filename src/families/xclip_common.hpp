#pragma once
// X-CLIP's vision tower (models/x_clip/modeling_x_clip.py, transformers 5.24.0), shared by XCLIPModel and
// XCLIPVisionModel: CLIP's ViT run over the num_frames frames of a clip at once, with cross-frame communication
// (before every layer each frame's class token goes through message_fc, a message_ln + message_attn attention
// across the frames, and joins its frame's sequence as one extra token for that layer's self-attention only).
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::xclip {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// One transformer's sizes: the vision encoder's, or the multi-frame integration transformer's (mit_*).
struct TowerDims {
  std::int64_t hidden, intermediate, layers, heads;
  std::string activation;
  double attention_dropout = 0.0;
};

/// XCLIPVisionConfig's encoder sizes (its defaults: ViT-B/32 widths, quick_gelu).
TowerDims vision_dims(const Config& c);

/// A CLIP self-attention (q/k/v/out_proj) under `module`.
blocks::AttentionSpec self_attention_spec(const Scope& module, const TowerDims& d);
/// A CLIP MLP (fc1, fc2) under `mlp`.
blocks::FeedForwardSpec mlp_spec(const Scope& mlp, const TowerDims& d);

/// XCLIPVisionModel's modules under `root` over `frames` images: embeddings, pre_layernorm, the cross-frame encoder;
/// returns the encoder's last state [frames, 1 + patches, hidden] and sets `pooled` to the post-layernormed class
/// tokens [frames, hidden].
Value vision_tower(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, const TowerDims& d,
                   std::int64_t frames, Value& pooled);

}  // namespace neurarch::families::xclip
