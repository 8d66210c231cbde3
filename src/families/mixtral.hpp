#pragma once
// Mixtral's decoder, which MiniMax and MiniMax-M2 derive from (modular_minimax.py, modular_minimax_m2.py).
#include "families/llama_common.hpp"

namespace neurarch::families::mixtral {

/// MixtralConfig's defaults for the keys spec() reads.
struct Defaults {
  decoder::LlamaDefaults llama{.vocab = 32000, .hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32,
                               .kv_heads = 8, .positions = 4096 * 32, .activation = "silu",
                               .tie_word_embeddings = false};
  std::int64_t num_local_experts = 8;
  std::int64_t num_experts_per_tok = 2;
};

/// Mistral's attention and a block_sparse_moe on every layer (router `gate`, experts.<i>.{w1, w3, w2}), read with
/// the config class's `defaults`.
decoder::DecoderSpec spec(const Config& c, const Defaults& defaults = {});

}  // namespace neurarch::families::mixtral
