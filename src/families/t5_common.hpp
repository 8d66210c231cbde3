#pragma once
// The T5 encoder-decoder shared by t5, mt5 and umt5: one `shared` token table that both stacks
// read (encoder.embed_tokens / decoder.embed_tokens are aliases of it), pre-norm blocks with
// bias-free projections and weight-only RMS norms, no absolute positions but a bucketed
// relative-position bias, and a decoder whose blocks add cross-attention over the encoder.
#include <cstdint>
#include <string_view>

#include "families/family.hpp"

namespace neurarch::families::t5 {

/// The config class's defaults for keys absent from config.json (T5Config's here).
struct ConfigDefaults {
  std::int64_t vocab = 32128;
  std::int64_t d_ff = 2048;
  std::int64_t layers = 6;
  std::int64_t heads = 8;
  std::string_view feed_forward_proj = "relu";
  bool tie_word_embeddings = true;
};

struct Layout {
  /// false (T5, mT5): only block 0 of each stack owns relative_attention_bias and the others
  /// reuse its output; true (UMT5): every block owns one.
  bool bias_in_every_layer = false;
  ConfigDefaults defaults;
};

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

}  // namespace neurarch::families::t5
