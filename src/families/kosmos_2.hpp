#pragma once
// Kosmos-2's text decoder and image-to-text projection, which Kosmos-2.5 reuses with its own defaults.
#include <cstdint>

#include "families/family.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families::kosmos2 {

/// The text config class's defaults and the attention paths the reference has (Kosmos2TextConfig's here).
struct TextDefaults {
  std::int64_t vocab = 65037, hidden = 2048, layers = 24, heads = 32, intermediate = 8192, positions = 2048;
  double attention_dropout = 0.1;
  std::int64_t latent_queries = 64;  ///< the composite config's latent_query_num
  /// `self_attn.inner_attn_ln`: a LayerNorm over the heads' outputs before out_proj (Kosmos-2 only).
  bool attention_sub_norm = true;
  bool sdpa = false;  ///< Kosmos-2's attention is eager only in 4.47
};

/// The XGLM-like pre-norm text decoder (sinusoidal positions, sqrt(embed_dim) embedding scale, a sub-LayerNorm
/// before fc2) as decoder::build_decoder composes it.
decoder::DecoderSpec text_spec(const Config& text, const TextDefaults& d);

/// `image_to_text_projection`: dense to the text width, then latent_query_num learned rows cross-attend to the
/// projected patches followed by themselves; returns [latents, width].
graph::Value image_to_text(graph::GraphBuilder& b, const graph::Value& image, const Config& c, const Config& text,
                           std::int64_t width, const TextDefaults& d);

/// The text decoder of `spec` under `text_model.model` (the base class) or `text_model` with its `lm_head` (the
/// generation class, whose head is causal LM).
graph::Value text_model(const BuildInput& in, graph::GraphBuilder& b, const Config& text,
                        const decoder::DecoderSpec& spec);

}  // namespace neurarch::families::kosmos2
