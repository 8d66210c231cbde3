#pragma once
// Gemma 3's text decoder spec, exported for the models derived from it (modular_gemma3n.py derives Gemma 3n's
// text model from Gemma 3's, and modular_gemma4.py Gemma 4's from Gemma 3n's).
#include "families/llama_common.hpp"

namespace neurarch::families::gemma3_text {

/// A derived config class's defaults for the keys Gemma 3's text model reads.
struct Defaults {
  decoder::LlamaDefaults llama{.vocab = 262208, .hidden = 2304, .intermediate = 9216, .layers = 26, .heads = 8,
                               .kv_heads = 4, .head_dim = 256, .positions = 131072,
                               .activation = "gelu_pytorch_tanh", .tie_word_embeddings = true};
  std::int64_t window = 4096;
  /// Without layer_types, every global_every-th layer attends globally.
  std::int64_t global_every = 6;
};

/// Gemma3TextConfig: Gemma 2's four RMSNorms per layer, per-head q/k norms, sliding windows from layer_types
/// (or every `global_every`-th layer global). The MLP width is read by the caller (`intermediate_size`), which
/// Gemma 3n may give per layer.
decoder::DecoderSpec spec(const Config& c, const Defaults& d = {});

}  // namespace neurarch::families::gemma3_text
