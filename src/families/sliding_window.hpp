#pragma once
// Longformer's sliding-window self-attention, shared by Longformer and LED's encoder: every token
// scores attention_window / 2 tokens on either side (2w + 1 keys) in overlapping chunks, and the
// query_global / key_global / value_global projections serve tokens given global attention.
#include <cstdint>
#include <string_view>

#include "blocks/blocks.hpp"

namespace neurarch::families::sliding_window {

/// Rewrites `attention`'s attrs to the band: query_len = a chunk of w queries and kv_len = 2w + 1
/// keys, so the planners count tokens x heads x (2w + 1) scores rather than seq x seq (the chunked
/// matmul also computes scores it discards, about twice as many, which is not charged, and neither is
/// the padding of the input to a multiple of the window). Eager only. Fails an odd or non-positive
/// window as the reference's assert does; layer 0 notes the band and the padding, naming `model`.
void apply(blocks::GraphBuilder& b, const blocks::Value& attention, std::int64_t window, std::int64_t layer,
           std::string_view model);

/// query_global / key_global / value_global under `module`, owned by `owner`: the attention node, reading its input,
/// when the class gives tokens global attention by default; else a node that claims no compute for them, idle (no
/// gradient, no optimizer state).
void global_projections(blocks::GraphBuilder& b, const blocks::Value& owner, const blocks::Scope& module,
                        std::int64_t hidden, graph::Operand operand);

}  // namespace neurarch::families::sliding_window
