// ERNIE-M (models/deprecated/ernie_m/modeling_ernie_m.py + configuration_ernie_m.py, transformers 4.47.1; removed
// in 5.x): a post-norm BERT encoder under PaddleNLP's module names (encoder.layers.i.self_attn.self_attn.{q,k,v}_proj,
// self_attn.out_proj, norm1, linear1/linear2, norm2), no token-type table, and a position table of
// max_position_embeddings rows numbered from 2 (position_ids += 2 "to mimic paddlenlp"). act_dropout sits between
// linear1's activation and linear2. The pooler and the BERT-style pooled classifier, token classifier and QA head
// are BERT's (bert::pooler / bert::heads); the pooler is built for the base and sequence-classification classes.
// ErnieMForMultipleChoice and ErnieMForInformationExtraction are left out.
#include <algorithm>

#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace ernie_m_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "ernie_m", .pooler = bert::PoolerUse::PooledHeads};
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 3072);
  const std::int64_t max_positions = c.dim({"max_position_embeddings"}, 514);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t pad = c.integer({"pad_token_id"}, 1);
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.1);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.1);
  const double act_dropout = c.number({"act_dropout"}, 0.0);
  const std::string position_type = c.text({"position_embedding_type"}, "absolute");
  const bool relative = position_type == "relative_key" || position_type == "relative_key_query";
  // Positions 0 and 1 of the table are never read.
  constexpr std::int64_t kPositionOffset = 2;

  bert::Trunk t{.root = in.head == Head::Base ? Scope() : Scope(std::string(layout.prefix)),
                .hidden = hidden,
                .intermediate = intermediate,
                .embedding = hidden,
                .vocab = c.dim({"vocab_size"}, 250002),
                .activation = c.text({"hidden_act"}, "gelu")};
  t.seq = in.sequence_length(std::max<std::int64_t>(max_positions - kPositionOffset, 1));
  const Scope emb = t.root / "embeddings";
  auto x = b.input({t.seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", t.vocab, hidden);
  if (pad >= t.vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, t.vocab));
  t.word_embeddings = (emb / "word_embeddings")("weight");
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", max_positions, hidden, kPositionOffset);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "layer_norm"});
  b.at(x).dropout = hidden_dropout;

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = t.root / "encoder" / "layers" / i;
    const Scope attn = l / "self_attn";
    const Scope self = attn / "self_attn";
    const BlockNames n{i};
    auto a = attention(b, x, n.attention(),
                       {.hidden = hidden, .heads = heads, .module = attn, .q = self / "q_proj", .k = self / "k_proj",
                        .v = self / "v_proj", .o = attn / "out_proj", .dropout = attention_dropout,
                        .output_dropout = hidden_dropout});
    b.at(a).attention->sdpa = false;  // ErnieMSelfAttention is eager only
    // Relative scores read a table of every distance -(max-1)..(max-1), one row per head dim.
    if (relative) b.parameter(a, self("distance_embedding.weight"), {2 * max_positions - 1, hidden / heads}, graph::TensorRole::Embedding);
    auto h = norm(b, add(b, a, x, n.add(1)), n.norm(1, NormKind::LayerNorm), {l / "norm1"});
    auto f = feed_forward(b, h, n.ffn(),
                          {.hidden = hidden, .intermediate = intermediate, .activation = t.activation, .module = l,
                           .up = l / "linear1", .down = l / "linear2", .output_dropout = hidden_dropout,
                           .inner_dropout = act_dropout});
    x = norm(b, add(b, f, h, n.add(2)), n.norm(2, NormKind::LayerNorm), {l / "norm2"});
  }
  b.set_block(-1);
  t.x = x;
  return bert::heads(in, b, layout, t);
}

}  // namespace
}  // namespace ernie_m_impl

const Family& ernie_m_family() {
  static const Family family{"ernie_m", "models/deprecated/ernie_m/modeling_ernie_m.py",
                             classes("ErnieM", {heads::ForSequenceClassification, heads::ForTokenClassification,
                                                heads::ForQuestionAnswering}),
                             ernie_m_impl::build};
  return family;
}

}  // namespace neurarch::families
