// SqueezeBERT (models/squeezebert/modeling_squeezebert.py, transformers 4.47.1): BERT's embeddings,
// pooler and heads (base model `transformer`, pooler in every class) around layers whose
// position-wise Linears are grouped 1x1 Conv1d: query / key / value (q_groups, k_groups, v_groups),
// post_attention (post_attention_groups, no separate output projection), intermediate
// (intermediate_groups, hidden_act) and output (output_groups), each residual block closed by its own
// layernorm. The encoder asserts embedding_size == hidden_size. Eager attention only.
#include <fmt/format.h>

#include "families/bert_common.hpp"

namespace neurarch::families {
namespace squeezebert_impl {
namespace {

using namespace blocks;

/// A kernel-1 Conv1d of `groups` over [seq, in] -> [seq, out] (weight [out, in / groups, 1], bias [out]).
Value pointwise_conv(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                     std::int64_t out, std::int64_t groups, const std::string& key) {
  const std::int64_t seq = x.shape.front();
  auto node = b.node(graph::NodeType::Conv1d, name, {seq, out}, {x}, module);
  b.at(node).conv = graph::ConvAttrs{in, out, 1, 1, 0, groups, seq, seq, false};
  b.parameter(node, module("weight"), {out, groups > 0 ? in / groups : 0, 1}, graph::TensorRole::Conv);
  b.parameter(node, module("bias"), {out}, graph::TensorRole::Bias);
  if (groups < 1 || in % groups != 0 || out % groups != 0)
    b.fail(node, fmt::format("{} {} must divide the convolution's {} input and {} output channels", key, groups, in,
                             out));
  return node;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  static const bert::Layout layout{.prefix = "transformer", .pooler = bert::PoolerUse::Always};
  bert::Trunk t;
  t.hidden = c.dim({"hidden_size"}, 768);
  t.intermediate = c.dim({"intermediate_size"}, 3072);
  t.embedding = c.dim({"embedding_size"}, 768);
  t.vocab = c.dim({"vocab_size"}, 30522);
  t.activation = c.text({"hidden_act"}, "gelu");
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.1);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.1);
  t.seq = in.sequence_length(positions);
  t.root = in.head == Head::Base ? Scope() : Scope("transformer");
  const Scope emb = t.root / "embeddings";

  auto x = b.input({t.seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", t.vocab, t.embedding);
  t.word_embeddings = (emb / "word_embeddings")("weight");
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", positions, t.embedding);
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", c.dim({"type_vocab_size"}, 2),
                      t.embedding);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = hidden_dropout;
  if (t.embedding != t.hidden)
    b.fail(x, fmt::format("embedding_size {} differs from hidden_size {}: SqueezeBertEncoder asserts they agree",
                          t.embedding, t.hidden));

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = t.root / "encoder" / "layers" / i;
    BlockNames names{i};
    const Scope self = l / "attention";
    auto a = b.node(graph::NodeType::MultiHeadAttention, names.attention(), {t.seq, t.hidden}, {x}, self);
    b.at(a).attention =
        graph::AttentionAttrs{heads, heads, t.hidden / heads, t.seq, t.seq, false, 0, attention_dropout, false, false};
    b.at(a).attention->sdpa = false;
    for (auto [proj, key] : {std::pair{"query", "q_groups"}, {"key", "k_groups"}, {"value", "v_groups"}}) {
      const std::int64_t groups = c.dim({key}, 4);
      b.parameter(a, (self / proj)("weight"), {t.hidden, groups > 0 ? t.hidden / groups : 0, 1}, graph::TensorRole::Conv);
      b.parameter(a, (self / proj)("bias"), {t.hidden}, graph::TensorRole::Bias);
      if (groups < 1 || t.hidden % groups != 0)
        b.fail(a, fmt::format("{} {} must divide hidden_size {}", key, groups, t.hidden));
    }
    if (t.hidden % heads != 0)
      b.fail(a, fmt::format("hidden_size {} is not a multiple of {} heads", t.hidden, heads));

    auto post = pointwise_conv(b, a, fmt::format("Post_Attention_{}", i), l / "post_attention" / "conv1d", t.hidden,
                               t.hidden, c.dim({"post_attention_groups"}, 1), "post_attention_groups");
    b.at(post).dropout = hidden_dropout;
    x = norm(b, add(b, post, x, names.add(1)), names.norm(1, NormKind::LayerNorm), {l / "post_attention" / "layernorm"});
    auto up = pointwise_conv(b, x, fmt::format("Intermediate_{}", i), l / "intermediate" / "conv1d", t.hidden,
                             t.intermediate, c.dim({"intermediate_groups"}, 4), "intermediate_groups");
    b.at(up).activation = t.activation;
    auto down = pointwise_conv(b, up, fmt::format("Output_{}", i), l / "output" / "conv1d", t.intermediate, t.hidden,
                               c.dim({"output_groups"}, 4), "output_groups");
    b.at(down).dropout = hidden_dropout;
    x = norm(b, add(b, down, x, names.add(2)), names.norm(2, NormKind::LayerNorm), {l / "output" / "layernorm"});
  }
  b.set_block(-1);
  t.x = x;
  return bert::heads(in, b, layout, t);
}

}  // namespace
}  // namespace squeezebert_impl

const Family& squeezebert_family() {
  static const Family family{"squeezebert", "models/squeezebert/modeling_squeezebert.py",
                             classes("SqueezeBert", heads::kEncoder), squeezebert_impl::build};
  return family;
}

}  // namespace neurarch::families
