#pragma once
// The layers and final norm of build_decoder (llama_common.cpp) over embeddings the caller made: for models whose
// inputs are not one token id per position (CSM's summed codebooks, its depth decoder's projected frames).
#include <cstdint>

#include "families/llama_common.hpp"

namespace neurarch::families::decoder {

/// s.layers layers of `s` under root / s.names.layers, blocks first_block + i, then the final norm.
graph::Value decoder_stack(graph::GraphBuilder& b, graph::Value x, const graph::Scope& root, const DecoderSpec& s,
                           int first_block);

}  // namespace neurarch::families::decoder
