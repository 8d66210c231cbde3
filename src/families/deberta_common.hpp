#pragma once
// DeBERTa v1 and v2/v3 (models/deberta/modeling_deberta.py, models/deberta_v2/modeling_deberta_v2.py,
// transformers 4.47.1): BERT's post-norm layer with disentangled attention. Content and relative
// positions get separate projections; the relative table (encoder.rel_embeddings) is shared by every
// layer. The two versions differ in the attention's projections, the table size (v2's
// position_buckets), v2's optional norm on the table and convolution after the first layer, and
// the names of the masked-LM head.
#include "families/family.hpp"

namespace neurarch::families::deberta {

enum class Version {
  V1,  ///< in_proj (q/k/v fused, no bias) + q_bias/v_bias; pos_proj / pos_q_proj; talking heads
  V2,  ///< query_proj/key_proj/value_proj; pos_key_proj / pos_query_proj unless share_att_key
};

struct Defaults {
  std::int64_t vocab = 0;
  std::int64_t hidden = 0;
  std::int64_t layers = 0;
  std::int64_t heads = 0;
  std::int64_t intermediate = 0;
  /// SEW-D's config class: dropouts from attention_dropout / activation_dropout rather than BERT's
  /// *_prob keys, and its defaults (relative attention with 256 buckets, shared keys, p2c + c2p,
  /// a LayerNorm on the table, gelu_python).
  bool sew_d = false;
};

/// The base model and the heads of `in.head` (MaskedLM, SequenceClassification,
/// TokenClassification, QuestionAnswering).
graph::Value build(const BuildInput& in, graph::GraphBuilder& b, Version version, const Defaults& defaults);

/// v2's encoder alone (relative table, its norm, layers, conv) on an already embedded [seq, hidden]
/// sequence, at module `encoder`: SEW-D's transformer.
graph::Value v2_encoder(const Config& c, graph::GraphBuilder& b, const graph::Value& x, const graph::Scope& encoder,
                        const Defaults& defaults);

}  // namespace neurarch::families::deberta
