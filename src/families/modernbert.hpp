#pragma once
// ModernBERT's pieces, exported for ModernBERT-decoder (modular_modernbert_decoder.py derives it from
// ModernBERT): the config keys both read, the embeddings, the pre-norm layer (no attention norm on layer 0)
// and the prediction head. The decoder states what it changes: causal attention with separate q/k/v, its
// windows and its heads.
#include <cstdint>
#include <string>

#include "families/family.hpp"

namespace neurarch::families::modernbert {

/// ModernBertConfig's sizes and switches, with its defaults (ModernBertDecoderConfig keeps them).
struct Spec {
  std::int64_t vocab, hidden, intermediate, layers, heads, positions, pad;
  std::string activation;
  bool norm_bias, attention_bias, mlp_bias;
  double attention_dropout;
};
Spec read(const Config& c);

/// The module the base model lives under: the class itself, or `model` in head classes.
blocks::Scope root(const BuildInput& in);

/// tok_embeddings, then the embedding norm (embedding_dropout); the sequence is --seq or the positions.
blocks::Value embeddings(const BuildInput& in, blocks::GraphBuilder& b, const Spec& s);

/// Layer `i` under `root`.layers.i: attn_norm (none on layer 0), attention (`attn` names the projections,
/// window and masking; the rest comes from `s`), mlp_norm, and the gated MLP Wi / Wo (`ffn` gives its dropout).
blocks::Value layer(blocks::GraphBuilder& b, const blocks::Value& x, std::int64_t i, const blocks::Scope& root,
                    const Spec& s, blocks::AttentionSpec attn, blocks::FeedForwardSpec ffn);

/// The final norm after the layers.
blocks::Value final_norm(blocks::GraphBuilder& b, const blocks::Value& x, const blocks::Scope& root, const Spec& s);

/// ModernBertPredictionHead under `module`: dense (classifier_bias) + classifier_activation + norm.
blocks::Value prediction_head(blocks::GraphBuilder& b, const Config& c, const blocks::Value& x,
                              const blocks::Scope& module, const Spec& s);

}  // namespace neurarch::families::modernbert
