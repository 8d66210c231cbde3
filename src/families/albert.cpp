// ALBERT (models/albert/modeling_albert.py + configuration_albert.py, transformers 4.47.1): BERT's
// embeddings in embedding_size dimensions, mapped to hidden_size by encoder.embedding_hidden_mapping_in;
// num_hidden_groups groups of inner_group_num post-norm layers whose weights every layer of the group
// reuses: layer i runs group floor(i * groups / layers). The graph has a node per application and
// the weights once (later applications alias the first). The MLM head maps back to embedding_size
// before a decoder tied to the word embeddings; the pooler is a bare Linear + tanh ("pooler").
#include <fmt/format.h>

#include "families/family.hpp"
#include "families/shared_parameters.hpp"

namespace neurarch::families {
namespace albert_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct AlbertDims {
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t intermediate = 0;
  std::int64_t max_positions = 0;
  std::string activation;
  bool relative = false;
  double hidden_dropout = 0.0;
  double attention_dropout = 0.0;
};

/// One AlbertLayer: attention (+ dense, residual, LayerNorm), ffn -> act -> ffn_output, residual,
/// full_layer_layer_norm.
Value albert_layer(GraphBuilder& b, SharedParameters& p, const Value& x, std::int64_t i, int sub, const Scope& l,
                   const AlbertDims& d) {
  const std::string tag = sub == 0 ? fmt::format("{}", i) : fmt::format("{}_{}", i, sub);
  const Scope attn = l / "attention";
  const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
  const std::int64_t head_dim = d.hidden / d.heads;
  auto a = b.node(NodeType::MultiHeadAttention, "Attention_" + tag, x.shape, {x}, attn);
  b.at(a).attention = graph::AttentionAttrs{.heads = d.heads, .kv_heads = d.heads, .head_dim = head_dim,
                                            .query_len = seq, .kv_len = seq, .dropout = d.attention_dropout};
  b.at(a).dropout = d.hidden_dropout;
  for (const char* proj : {"query", "key", "value"}) p.linear(a, attn / proj, d.hidden, d.heads * head_dim);
  p.linear(a, attn / "dense", d.hidden, d.hidden, true, graph::Operand::Inner);
  if (d.relative) p(a, attn("distance_embedding.weight"), {2 * d.max_positions - 1, head_dim}, graph::TensorRole::Embedding);
  if (x.shape.back() != d.hidden)
    b.fail(a, fmt::format("expects hidden size {}, receives {}", d.hidden, x.shape.back()));
  auto h = p.layer_norm(add(b, a, x, "Add_" + tag + "_1"), "LayerNorm_" + tag + "_1", attn / "LayerNorm");

  auto f = b.node(NodeType::FeedForward, "FFN_" + tag, h.shape, {h}, l);
  b.at(f).feed_forward = graph::FeedForwardAttrs{d.hidden, d.intermediate, d.activation, false};
  b.at(f).dropout = d.hidden_dropout;
  p.linear(f, l / "ffn", d.hidden, d.intermediate);
  p.linear(f, l / "ffn_output", d.intermediate, d.hidden, true, graph::Operand::Inner);
  return p.layer_norm(add(b, f, h, "Add_" + tag + "_2"), "LayerNorm_" + tag + "_2", l / "full_layer_layer_norm");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::string position_type = c.text({"position_embedding_type"}, "absolute");
  AlbertDims d{.hidden = c.dim({"hidden_size"}, 4096),
               .heads = c.dim({"num_attention_heads"}, 64),
               .intermediate = c.dim({"intermediate_size"}, 16384),
               .max_positions = c.dim({"max_position_embeddings"}, 512),
               .activation = c.text({"hidden_act"}, "gelu_new"),
               .relative = position_type == "relative_key" || position_type == "relative_key_query",
               .hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0),
               .attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0)};
  const std::int64_t vocab = c.dim({"vocab_size"}, 30000);
  const std::int64_t embedding = c.dim({"embedding_size"}, 128);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t groups = c.dim({"num_hidden_groups"}, 1);
  const std::int64_t inner = c.dim({"inner_group_num"}, 1);
  const std::int64_t pad = c.integer({"pad_token_id"}, 0);

  const bool pooled = in.head == Head::Base || in.head == Head::SequenceClassification || in.head == Head::PreTraining;
  const Scope root = in.head == Head::Base ? Scope() : Scope("albert");
  const Scope emb = root / "embeddings";
  auto x = b.input({in.sequence_length(d.max_positions)}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", vocab, embedding);
  if (pad >= vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, vocab));
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", c.dim({"type_vocab_size"}, 2),
                      embedding);
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", d.max_positions, embedding);
  if (d.relative)
    b.note(fmt::format("position_embedding_type={}: the absolute position table is stored but not added",
                       position_type));
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = d.hidden_dropout;
  const Scope encoder = root / "encoder";
  x = dense(b, x, "Embedding_Projection", encoder / "embedding_hidden_mapping_in", embedding, d.hidden, true);
  if (d.hidden % d.heads != 0)
    b.fail(x, fmt::format("hidden size {} not divisible by {} heads", d.hidden, d.heads));

  SharedParameters shared(b);
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const std::int64_t group = i * groups / layers;
    for (std::int64_t k = 0; k < inner; ++k)
      x = albert_layer(b, shared, x, i, static_cast<int>(k),
                       encoder / "albert_layer_groups" / group / "albert_layers" / k, d);
  }
  b.set_block(-1);
  if (groups > layers)
    b.note(fmt::format("{} layer groups for {} layers: groups past the layer count are never run and not counted",
                       groups, layers));

  const std::string words = (emb / "word_embeddings")("weight");
  auto mlm = [&](const Value& h) {
    const Scope head("predictions");
    auto t = dense(b, h, "MLM_Transform", head / "dense", d.hidden, embedding, true, d.activation);
    t = norm(b, t, "MLM_LayerNorm", {head / "LayerNorm"});
    const bool tie = c.flag({"tie_word_embeddings"}, true);
    return lm_head(b, t, "LM_Head",
                   {.module = head / "decoder", .hidden = embedding, .vocab = vocab, .bias = true,
                    .tied_weight = tie ? words : std::string(), .tied_bias = head("bias"), .extra_bias = head("bias")});
  };
  std::optional<Value> pool;
  if (pooled) pool = pooler(b, x, "Pooler", root / "pooler", d.hidden);

  switch (in.head) {
    case Head::MaskedLM:
      return mlm(x);
    case Head::PreTraining:
      classifier(b, *pool, "SOP_Head", Scope("sop_classifier") / "classifier", d.hidden, in.num_labels(), true);
      return mlm(x);
    case Head::SequenceClassification:
      return classifier(b, *pool, "Classifier", Scope("classifier"), d.hidden, in.num_labels(), true);
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("classifier"), d.hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return classifier(b, x, "QA_Outputs", Scope("qa_outputs"), d.hidden, in.num_labels(), true);
    default:
      return x;
  }
}

}  // namespace
}  // namespace albert_impl

const Family& albert_family() {
  static const Family family{"albert", "models/albert/modeling_albert.py",
                             classes("Albert", {heads::ForPreTraining, heads::ForMaskedLM, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             albert_impl::build};
  return family;
}

}  // namespace neurarch::families
