#pragma once
// Blocks that encoder-decoders add to the shared vocabulary: attention whose keys and values come
// from another stream (the encoder's last state), and T5's bucketed relative-position bias.
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

/// Queries from x ([tq, hidden]), keys and values from `memory` ([tk, kv_hidden]): an attention
/// node with two inputs whose kv_len is the memory's length. `spec.causal` is ignored (a decoder
/// sees the whole source).
Value cross_attention(GraphBuilder& b, const Value& x, const Value& memory, const std::string& name,
                      const AttentionSpec& spec, std::int64_t kv_hidden = 0);

struct RelativeBiasSpec {
  Scope module;  ///< the nn.Embedding: "...SelfAttention.relative_attention_bias"
  std::int64_t buckets = 32;
  std::int64_t heads = 0;
  /// The [query, key] grid the table is looked up over; 0: the input's length (a full square).
  /// LongT5's local attention looks it up for one block of queries against three blocks of keys.
  std::int64_t query_len = 0;
  std::int64_t key_len = 0;
};

/// T5's position bias: bucket indices of every (query, key) pair looked up in a [buckets, heads]
/// table, giving [heads, seq, seq] added to the scores of `attention` (which gains it as an input).
Value relative_position_bias(GraphBuilder& b, const Value& x, const std::string& name, const RelativeBiasSpec& spec);

/// Records that `attention` adds `bias` (made by this layer or an earlier one) to its scores.
void add_score_bias(GraphBuilder& b, const Value& attention, const Value& bias);

}  // namespace neurarch::blocks
