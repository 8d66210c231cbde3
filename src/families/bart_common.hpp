#pragma once
// The BART-style encoder-decoder shared by bart, mbart, pegasus, marian and m2m_100: a `shared`
// token table (encoder/decoder embed_tokens alias it), absolute positions (learned with an
// offset of 2, or a fixed sinusoid stored as a weight or kept as a non-persistent buffer),
// optional layernorm_embedding, post-norm (BART, Marian) or pre-norm layers with a final
// layer_norm per stack (mBART, Pegasus, M2M100), decoders with encoder_attn, and the heads:
// lm_head + final_logits_bias, an <eos> classification head, QA spans, and a decoder-only
// *ForCausalLM whose layers store encoder_attn weights they never run without encoder states.
#include <cstdint>
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::bart {

enum class Positions {
  Learned,           ///< embed_positions.weight [max_positions + offset, d], position ids start at offset
  SinusoidStored,    ///< a fixed sinusoid saved as embed_positions.weight [max_positions, d] (Pegasus, Marian)
  SinusoidBuffer,    ///< a fixed sinusoid in a non-persistent buffer, regrown on demand (M2M100)
};

/// The config class's defaults for keys absent from config.json.
struct ConfigDefaults {
  std::int64_t vocab = 50265;
  std::int64_t pad = 1;
  std::string_view activation = "gelu";
  bool scale_embedding = false;
};

struct Layout {
  ConfigDefaults defaults;
  Positions positions = Positions::Learned;
  std::int64_t position_offset = 2;  ///< Learned only: BART's legacy offset of 2 rows
  bool layernorm_embedding = true;
  bool pre_norm = false;             ///< mBART-style: norm before each sublayer, layer_norm after each stack
  bool final_logits_bias = true;     ///< the LM class registers a [1, vocab] buffer added to the logits
  bool marian_vocab = false;         ///< share_encoder_decoder_embeddings / decoder_vocab_size (Marian)
  bool sdpa = true;                  ///< false: the reference has only the eager attention class
  /// The LM class lists the stored sinusoid in _keys_to_ignore_on_save (MarianMTModel): the table
  /// exists but its checkpoint leaves it out.
  bool lm_drops_positions = false;
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

}  // namespace neurarch::families::bart
