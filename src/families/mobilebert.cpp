// MobileBERT (models/mobilebert/modeling_mobilebert.py + configuration_mobilebert.py, transformers
// 4.47.1). Tokens embed in embedding_size; trigram_input concatenates each token with its neighbours
// (3 * embedding_size) before embedding_transformation maps to hidden_size. Each layer narrows to
// true_hidden_size (= intra_bottleneck_size under use_bottleneck) through bottleneck.input; queries
// and keys read their own bottleneck (bottleneck.attention, key_query_shared_bottleneck) while values
// read the wide input (unless use_bottleneck_attention); num_feedforward_networks - 1 stacked FFNs
// run before the layer's own, and output.bottleneck widens back with a residual to the layer input.
// normalization_type "no_norm" is an elementwise affine (weight, bias) instead of LayerNorm. The MLM
// head multiplies by [decoder (tied, embedding_size wide) ; dense (hidden - embedding_size wide)].
#include <algorithm>

#include <fmt/format.h>

#include "families/family.hpp"

namespace neurarch::families {
namespace mobilebert_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct MobileDims {
  std::int64_t hidden = 0;
  std::int64_t true_hidden = 0;
  std::int64_t heads = 0;
  std::int64_t intermediate = 0;
  std::string activation;
  bool no_norm = true;
  bool bottleneck = true;
  bool bottleneck_attention = false;
  bool shared_qk_bottleneck = true;
  std::int64_t ffn_count = 4;
  double hidden_dropout = 0.0;
  double attention_dropout = 0.1;
};

/// NoNorm (x * weight + bias) or LayerNorm, both owning weight and bias.
Value mobile_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const MobileDims& d) {
  if (!d.no_norm) return norm(b, x, name, {module});
  auto out = b.node(NodeType::LayerScale, name, x.shape, {x}, module);
  b.parameter(out, module("weight"), {x.shape.back()}, graph::TensorRole::Norm);
  b.parameter(out, module("bias"), {x.shape.back()}, graph::TensorRole::Bias);
  return out;
}

/// dense -> (+ residual) -> norm, the shape of every MobileBERT output module.
Value dense_norm(GraphBuilder& b, const Value& x, const std::optional<Value>& residual, const std::string& name,
                 const Scope& module, std::int64_t in, std::int64_t out, const MobileDims& d, double dropout = 0.0) {
  auto h = dense(b, x, name, module / "dense", in, out, true);
  b.at(h).dropout = dropout;
  if (residual) h = add(b, h, *residual, name + "_Add");
  return mobile_norm(b, h, name + "_Norm", module / "LayerNorm", d);
}

Value mobile_layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const MobileDims& d) {
  const BlockNames n{i};
  const std::string tag = std::to_string(i);
  Value layer_input = x, qk = x, v = x;
  if (d.bottleneck) {
    const Scope bn = l / "bottleneck";
    layer_input = dense_norm(b, x, std::nullopt, "Bottleneck_In_" + tag, bn / "input", d.hidden, d.true_hidden, d);
    if (d.bottleneck_attention) {
      qk = v = layer_input;
    } else if (d.shared_qk_bottleneck) {
      qk = dense_norm(b, x, std::nullopt, "Bottleneck_QK_" + tag, bn / "attention", d.hidden, d.true_hidden, d);
    }
  }

  // Queries and keys may read a narrower input than values, so the node is declared here.
  const Scope attn = l / "attention";
  const Scope self = attn / "self";
  const std::int64_t head_dim = d.true_hidden / d.heads;
  const std::int64_t all_heads = d.heads * head_dim;
  const std::int64_t value_in = d.bottleneck_attention ? d.true_hidden : d.hidden;
  const std::int64_t seq = x.shape.size() >= 2 ? x.shape[x.shape.size() - 2] : 1;
  auto a = b.node(NodeType::MultiHeadAttention, n.attention(), {seq, d.true_hidden}, {qk, v}, attn);
  b.at(a).attention = graph::AttentionAttrs{.heads = d.heads, .kv_heads = d.heads, .head_dim = head_dim,
                                            .query_len = seq, .kv_len = seq, .dropout = d.attention_dropout};
  b.at(a).dropout = d.bottleneck ? 0.0 : d.hidden_dropout;
  linear_tensors(b, a, self / "query", d.true_hidden, all_heads, true);
  linear_tensors(b, a, self / "key", d.true_hidden, all_heads, true);
  linear_tensors(b, a, self / "value", value_in, all_heads, true);
  linear_tensors(b, a, attn / "output" / "dense", d.true_hidden, d.true_hidden, true, graph::Operand::Inner);
  if (qk.shape.back() != d.true_hidden)
    b.fail(a, fmt::format("query and key read {} features; their projections expect true_hidden_size {}",
                          qk.shape.back(), d.true_hidden));
  if (v.shape.back() != value_in)
    b.fail(a, fmt::format("value reads {} features; its projection expects {}", v.shape.back(), value_in));
  if (all_heads != d.true_hidden)
    b.fail(a, fmt::format("{} heads of {} give {} features; the output dense expects {}", d.heads, head_dim, all_heads,
                          d.true_hidden));
  auto h = add(b, a, layer_input, n.add(1));
  h = mobile_norm(b, h, n.norm(1, NormKind::LayerNorm), attn / "output" / "LayerNorm", d);

  for (std::int64_t k = 0; k + 1 < d.ffn_count; ++k) {
    const Scope f = l / "ffn" / k;
    auto up = feed_forward(b, h, fmt::format("FFN_{}_{}", i, k),
                           {.hidden = d.true_hidden, .intermediate = d.intermediate, .activation = d.activation,
                            .module = f, .up = f / "intermediate" / "dense", .down = f / "output" / "dense"});
    h = mobile_norm(b, add(b, up, h, fmt::format("Add_{}_ffn{}", i, k)), fmt::format("Norm_{}_ffn{}", i, k),
                    f / "output" / "LayerNorm", d);
  }
  auto f = feed_forward(b, h, n.ffn(),
                        {.hidden = d.true_hidden, .intermediate = d.intermediate, .activation = d.activation,
                         .module = l, .up = l / "intermediate" / "dense", .down = l / "output" / "dense",
                         .output_dropout = d.bottleneck ? 0.0 : d.hidden_dropout});
  auto out = mobile_norm(b, add(b, f, h, n.add(2)), n.norm(2, NormKind::LayerNorm), l / "output" / "LayerNorm", d);
  if (d.bottleneck)
    out = dense_norm(b, out, x, "Bottleneck_Out_" + tag, l / "output" / "bottleneck", d.true_hidden, d.hidden, d,
                     d.hidden_dropout);
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  MobileDims d{.hidden = c.dim({"hidden_size"}, 512),
               .heads = c.dim({"num_attention_heads"}, 4),
               .intermediate = c.dim({"intermediate_size"}, 512),
               .activation = c.text({"hidden_act"}, "relu"),
               .no_norm = c.text({"normalization_type"}, "no_norm") == "no_norm",
               .bottleneck = c.flag({"use_bottleneck"}, true),
               .bottleneck_attention = c.flag({"use_bottleneck_attention"}, false),
               .shared_qk_bottleneck = c.flag({"key_query_shared_bottleneck"}, true),
               .ffn_count = c.dim({"num_feedforward_networks"}, 4),
               .hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0),
               .attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.1)};
  d.true_hidden = d.bottleneck ? c.dim({"intra_bottleneck_size"}, 128) : d.hidden;
  const std::int64_t vocab = c.dim({"vocab_size"}, 30522);
  const std::int64_t embedding = c.dim({"embedding_size"}, 128);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 24);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const bool trigram = c.flag({"trigram_input"}, true);
  const std::int64_t pad = c.integer({"pad_token_id"}, 0);
  const std::string normalization = c.text({"normalization_type"}, "no_norm");
  const bool pooled = in.head == Head::Base || in.head == Head::SequenceClassification || in.head == Head::PreTraining;

  const Scope root = in.head == Head::Base ? Scope() : Scope("mobilebert");
  const Scope emb = root / "embeddings";
  auto x = b.input({in.sequence_length(positions)}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", vocab, embedding);
  if (pad >= vocab) b.fail(x, fmt::format("pad_token_id {} is not a row of the {}-token vocabulary", pad, vocab));
  if (normalization != "no_norm" && normalization != "layer_norm")
    b.fail(x, fmt::format("normalization_type '{}' is neither no_norm nor layer_norm", normalization));
  // The trigram concatenation is a 3-token window: the transformation reads three embeddings per token.
  const std::int64_t transformed_in = (trigram ? 3 : 1) * embedding;
  if (trigram) {
    Shape shape = x.shape;
    shape.back() = transformed_in;
    x = b.node(NodeType::Add, "Trigram_Concat", shape, {x});
  }
  const Scope transform = emb / "embedding_transformation";
  if (trigram || embedding != d.hidden) {
    x = dense(b, x, "Embedding_Transformation", transform, transformed_in, d.hidden, true);
  } else {
    // Declared but unused when the embedding already has hidden_size features.
    auto unused = b.node(NodeType::Linear, "Embedding_Transformation (unused)", x.shape, {}, transform);
    linear_tensors(b, unused, transform, transformed_in, d.hidden, true);
  }
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", c.dim({"type_vocab_size"}, 2),
                      d.hidden);
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", positions, d.hidden);
  x = mobile_norm(b, x, "Embedding_Norm", emb / "LayerNorm", d);
  b.at(x).dropout = d.hidden_dropout;

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    x = mobile_layer(b, x, i, root / "encoder" / "layer" / i, d);
  }
  b.set_block(-1);

  std::optional<Value> pool;
  if (pooled) {
    if (c.flag({"classifier_activation"}, true)) {
      pool = pooler(b, x, "Pooler", root / "pooler" / "dense", d.hidden);
    } else {
      pool = b.node(NodeType::Pooler, "Pooler", {d.hidden}, {x});
    }
  }
  auto mlm = [&](const Value& h) {
    const Scope head = Scope("cls") / "predictions";
    auto t = dense(b, h, "MLM_Transform", head / "transform" / "dense", d.hidden, d.hidden, true, d.activation);
    t = norm(b, t, "MLM_LayerNorm", {head / "transform" / "LayerNorm"});
    // logits = h @ [decoder.weight^T ; dense.weight]: the tied [vocab, embedding_size] matrix supplies
    // the first embedding_size input features, the head's own dense the remaining hidden - embedding_size.
    Shape shape = t.shape;
    shape.back() = vocab;
    auto logits = b.node(NodeType::LMHead, "LM_Head", shape, {t}, head);
    const std::string words = (emb / "word_embeddings")("weight");
    if (c.flag({"tie_word_embeddings"}, true))
      b.tied(logits, (head / "decoder")("weight"), {vocab, embedding}, words, graph::TensorRole::Linear);
    else
      b.parameter(logits, (head / "decoder")("weight"), {vocab, embedding}, graph::TensorRole::Linear);
    b.parameter(logits, (head / "dense")("weight"), {std::max<std::int64_t>(d.hidden - embedding, 0), vocab}, graph::TensorRole::Linear);
    b.parameter(logits, head("bias"), {vocab}, graph::TensorRole::Bias);
    b.tied(logits, (head / "decoder")("bias"), {vocab}, head("bias"), graph::TensorRole::Bias);
    if (embedding > d.hidden)
      b.fail(logits, fmt::format("embedding_size {} exceeds hidden_size {}: the head's dense would have no rows",
                                 embedding, d.hidden));
    return logits;
  };

  switch (in.head) {
    case Head::MaskedLM:
      return mlm(x);
    case Head::PreTraining:
      classifier(b, *pool, "NSP_Head", Scope("cls") / "seq_relationship", d.hidden, 2, true);
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
}  // namespace mobilebert_impl

const Family& mobilebert_family() {
  static const Family family{"mobilebert", "models/mobilebert/modeling_mobilebert.py",
                             classes("MobileBert",
                                     {heads::ForPreTraining, heads::ForMaskedLM, heads::ForSequenceClassification, heads::ForTokenClassification, heads::ForQuestionAnswering}),
                             mobilebert_impl::build};
  return family;
}

}  // namespace neurarch::families
