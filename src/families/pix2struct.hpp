#pragma once
// Pix2Struct's vision encoder (Pix2StructVisionModel), which Kosmos-2.5 reuses under other config keys:
// flattened_patches rows of [row id, column id, pixels] -> patch_projection + row/column tables -> T5-like
// layers (RMS norms, bias-free attention.{query,key,value,output}, gated wi_0/wi_1/wo MLP) -> layernorm.
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::pix2struct {

struct VisionEncoder {
  graph::Scope root{"encoder"};  ///< the module holding embeddings, encoder.layer and layernorm
  std::int64_t hidden = 768, d_kv = 64, d_ff = 2048, layers = 12, heads = 12;
  std::string activation = "gelu_new";
  double dropout = 0.0, attention_dropout = 0.0;
  std::int64_t patch_width = 768;  ///< patch_embed_hidden_size: pixels per patch row
  std::int64_t positions = 4096;   ///< rows of row_embedder and column_embedder
  std::int64_t patches = 2048;     ///< the image processor's default max_patches (the --seq default)
  bool sdpa = false;               ///< Pix2Struct's attention is eager only in 4.47
};

/// Pix2StructVisionConfig's keys with its defaults.
VisionEncoder read_vision(const Config& c);

graph::Value vision_encoder(const BuildInput& in, graph::GraphBuilder& b, const VisionEncoder& e);

}  // namespace neurarch::families::pix2struct
