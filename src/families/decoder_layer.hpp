#pragma once
// One Llama-shaped decoder layer as build_decoder stacks them (llama_common.cpp), for composite models that put
// such layers inside modules of their own (BLT's local encoder, global transformer, local decoder and patcher).
#include <cstdint>

#include "families/llama_common.hpp"

namespace neurarch::families::decoder {

/// Layer `i` under module `layer` (e.g. "model.local_encoder.layers.3"): [seq, hidden] -> [seq, hidden].
graph::Value decoder_layer(graph::GraphBuilder& b, const graph::Value& x, std::int64_t i, const graph::Scope& layer,
                           const DecoderSpec& s);

}  // namespace neurarch::families::decoder
