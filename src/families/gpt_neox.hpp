#pragma once
// GPT-NeoX's decoder (gpt_neox.cpp), which GPT-NeoX-Japanese repeats with fewer biases.
#include "families/llama_common.hpp"

namespace neurarch::families::gpt_neox {

/// The defaults of the config class being read (GPTNeoXConfig's here).
struct Defaults {
  std::int64_t vocab = 50432, hidden = 6144, layers = 44, heads = 64, intermediate = 24576, positions = 2048;
  bool tie_word_embeddings = false;
};

/// GPT-NeoX's keys with `d` where the config leaves them out: biased LayerNorms, fused query_key_value, the
/// parallel residual, `embed_out`.
decoder::DecoderSpec spec(const Config& c, const Defaults& d);

}  // namespace neurarch::families::gpt_neox
