// MPNet (models/mpnet/modeling_mpnet.py + configuration_mpnet.py, transformers 4.47.1): BERT's
// post-norm encoder without token types, attention projections named attention.attn.{q,k,v,o} with
// the norm at attention.LayerNorm, and one T5-style relative position bias shared by every layer
// (encoder.relative_attention_bias, [relative_attention_num_buckets, heads]). Positions are numbered
// from padding_idx + 1 with padding_idx fixed at 1 (not pad_token_id), so two rows are never read.
// Heads are RoBERTa's: lm_head.{dense,layer_norm,decoder}, classifier.{dense,out_proj}; only the
// base class has the pooler.
#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace mpnet_impl {
namespace {

using namespace blocks;
using graph::NodeType;

/// MPNetEmbeddings hard-codes padding_idx = 1; positions start after it.
constexpr std::int64_t kPositionOffset = 2;

Value build(const BuildInput& in, GraphBuilder& b) {
  static const bert::Layout layout{.prefix = "mpnet", .heads = bert::HeadStyle::Roberta,
                                   .pooler = bert::PoolerUse::BaseOnly};
  const Config& c = in.config;
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 3072);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const std::int64_t buckets = c.dim({"relative_attention_num_buckets"}, 32);
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.1);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.1);

  bert::Trunk t{.hidden = hidden, .intermediate = intermediate, .embedding = hidden,
                .vocab = c.dim({"vocab_size"}, 30527), .activation = c.text({"hidden_act"}, "gelu")};
  t.seq = in.sequence_length(std::max<std::int64_t>(positions - kPositionOffset, 1));
  t.root = in.head == Head::Base ? Scope() : Scope("mpnet");
  const Scope emb = t.root / "embeddings";
  auto x = b.input({t.seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", t.vocab, hidden);
  t.word_embeddings = (emb / "word_embeddings")("weight");
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", positions, hidden, kPositionOffset);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = hidden_dropout;

  // The bias over every (query, key) bucket is computed once and added to each layer's scores.
  const Scope encoder = t.root / "encoder";
  auto bias = b.node(NodeType::Embedding, "Relative_Position_Bias", {heads, t.seq, t.seq}, {x},
                     encoder / "relative_attention_bias");
  b.parameter(bias, (encoder / "relative_attention_bias")("weight"), {buckets, heads}, graph::TensorRole::Embedding);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const BlockNames n{i};
    const Scope l = encoder / "layer" / i;
    const Scope attn = l / "attention" / "attn";
    auto a = attention(b, x, n.attention(),
                       {.hidden = hidden, .heads = heads, .module = l / "attention", .q = attn / "q", .k = attn / "k",
                        .v = attn / "v", .o = attn / "o", .dropout = attention_dropout,
                        .output_dropout = hidden_dropout});
    b.at(a).inputs.push_back(bias.node);
    auto h = norm(b, add(b, a, x, n.add(1)), n.norm(1, NormKind::LayerNorm), {l / "attention" / "LayerNorm"});
    auto f = feed_forward(b, h, n.ffn(),
                          {.hidden = hidden, .intermediate = intermediate, .activation = t.activation, .module = l,
                           .up = l / "intermediate" / "dense", .down = l / "output" / "dense",
                           .output_dropout = hidden_dropout});
    x = norm(b, add(b, f, h, n.add(2)), n.norm(2, NormKind::LayerNorm), {l / "output" / "LayerNorm"});
  }
  b.set_block(-1);
  t.x = x;
  return bert::heads(in, b, layout, t);
}

}  // namespace
}  // namespace mpnet_impl

const Family& mpnet_family() {
  static const Family family{"mpnet", "models/mpnet/modeling_mpnet.py", classes("MPNet", heads::kEncoder), mpnet_impl::build};
  return family;
}

}  // namespace neurarch::families
