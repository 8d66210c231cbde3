#pragma once
// What ColPali and ColQwen2 share (models/colpali, models/colqwen2, transformers 4.57.6): a vision-language
// model's ForConditionalGeneration class under `vlm`, of which the forward runs the base model only (its
// lm_head is stored, or dropped as a tied duplicate, but never run), and `embedding_proj_layer` (text hidden
// -> embedding_dim, with bias) over its last hidden state, L2-normalised into one multi-vector embedding per
// prompt token. The normalisation adds no tensor.
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::colvision {

/// The VLM's base model of config `vlm`, built under the current nest; returns its last hidden state.
using BaseModel = blocks::Value (*)(const BuildInput& in, blocks::GraphBuilder& b, const Config& vlm);

/// vlm_config (`default_vlm` when absent), refused unless its model_type is `vlm_type`.
Config vlm_config(const Config& c, std::string_view vlm_type, std::string_view owner);

/// `vlm.model` built by `base`, `vlm.lm_head` stored unless `lm_head_tied` (on the last hidden state, claiming no
/// compute), and the retrieval projection at the top level; returns the embeddings [seq, embedding_dim].
blocks::Value retrieval(const BuildInput& in, blocks::GraphBuilder& b, const Config& vlm, BaseModel base,
                        bool lm_head_tied);

}  // namespace neurarch::families::colvision
