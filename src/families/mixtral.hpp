#pragma once
// Mixtral's decoder, which MiniMax derives from (transformers' modular_minimax.py).
#include "families/llama_common.hpp"

namespace neurarch::families::mixtral {

/// Mistral's attention and a block_sparse_moe on every layer (router `gate`, experts.<i>.{w1, w3, w2}), with
/// MixtralConfig's defaults.
decoder::DecoderSpec spec(const Config& c);

}  // namespace neurarch::families::mixtral
