#pragma once
// Gemma 3n's text stack (gemma3n_text.cpp), exported for Gemma 4's text model (modular_gemma4.py derives it
// from Gemma 3n's): Gemma 3's layer, fed per-layer embeddings, optionally wrapped in AltUp's parallel residual
// streams and a Laurel low-rank residual, with the last layers reusing earlier layers' keys and values.
#include <cstdint>
#include <optional>
#include <vector>

#include "families/gemma3_text.hpp"

namespace neurarch::families::gemma3n {

/// One layer's attention: Gemma 4 widens the heads of full-attention layers and drops projections.
struct LayerAttention {
  std::int64_t head_dim = 0;
  std::int64_t kv_heads = 0;
  bool keys = true;    ///< k_proj and k_norm; false: the layer reuses an earlier layer's keys and values
  bool values = true;  ///< v_proj; false: reused, or the keys serve as values (Gemma 4's attention_k_eq_v)
};

/// Gemma 4's mixture-of-experts block beside the dense MLP.
struct Experts {
  std::int64_t experts = 0;
  std::int64_t top_k = 0;
  std::int64_t intermediate = 0;
};

struct TextSpec {
  /// Gemma 3's reading: sizes, names, windows, activation, bias, tying.
  decoder::DecoderSpec decoder;
  std::vector<std::int64_t> intermediates;  ///< MLP width per layer
  std::vector<LayerAttention> attention;    ///< per layer
  /// Per-layer embeddings (PLE): a [per_layer_vocab, layers x per_layer_width] table plus a projection of
  /// the token embedding, one per_layer_width slice fed to each layer. 0: none (Gemma 4 may switch it off).
  std::int64_t per_layer_vocab = 0;
  std::int64_t per_layer_width = 0;
  /// AltUp: the residual is `altup_inputs` parallel streams, of which one runs through the layer; 0: none.
  std::int64_t altup_inputs = 0;
  bool altup_correct_scale = true;
  std::int64_t laurel_rank = 0;  ///< the Laurel residual's rank; 0: none
  bool layer_scalar = false;     ///< a persistent [1] buffer scaling each layer's output (Gemma 4)
  std::optional<Experts> experts;
  /// MLP widths that the sharing layers double (Gemma 4's use_double_wide_mlp): applied by the caller.
};

/// Gemma3nTextConfig's reading.
TextSpec text_spec(const Config& c);

/// The first layer that reuses keys and values (num_kv_shared_layers from the end), checked the reference's
/// way: every layer type that consumes must be produced by an earlier layer.
std::int64_t first_shared_layer(const Config& c, const decoder::DecoderSpec& s, std::int64_t default_shared);

/// The base model under `root` plus the head of `in.head` (CausalLM, tied to the embedding unless untied).
graph::Value build_text(const BuildInput& in, graph::GraphBuilder& b, const TextSpec& s);

}  // namespace neurarch::families::gemma3n
