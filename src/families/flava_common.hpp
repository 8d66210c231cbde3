#pragma once
// FLAVA's unimodal encoders (models/flava/modeling_flava.py, transformers 4.47.1), shared by FlavaModel and
// FlavaTextModel: ViT encoders (vit::vit_layers: pre-norm layers under ViT's module names, then `layernorm` and a
// tanh `pooler`). The image model embeds with ViT's patch embeddings, cls_token, mask_token (image_config.mask_token,
// default true) and a [1, patches + 1, hidden] position table; the text model with BERT's embeddings (word,
// position, token type, LayerNorm).
#include <cstdint>

#include "families/family.hpp"

namespace neurarch::families::flava {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

struct Tower {
  Value states;  ///< every token, after layernorm
  std::int64_t hidden = 0;
};

/// An encoder's layers (under `root`.encoder.layer, numbered from `first_block`), its layernorm and its pooler over
/// `x`, from the config `c` (the multimodal model runs one over the joined image and text states).
Tower encode(GraphBuilder& b, const Value& x, const Config& c, const Scope& root, std::int64_t first_block);
/// FlavaImageModel's modules under `root`, from the image config `c`.
Tower image_model(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root);
/// FlavaTextModel's modules under `root`, from the text config `c`; its layers are numbered from `first_block`.
Tower text_model(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, std::int64_t first_block);

}  // namespace neurarch::families::flava
