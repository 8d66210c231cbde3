// ConvBERT (models/convbert/modeling_convbert.py, transformers 4.47.1): ELECTRA's embeddings and heads
// around mixed attention. Each self-attention keeps num_attention_heads / head_ratio heads of
// hidden / num_attention_heads channels (all_head_size) for q/k/v, and spends the other half of the
// width on span-based dynamic convolution: key_conv_attn_layer (a depthwise Conv1d of
// conv_kernel_size, then a pointwise one, and a [all_head, 1] bias) times the query feeds
// conv_kernel_layer, one softmaxed kernel per head and token, which mixes conv_out_layer's unfolded
// neighbourhood; output.dense reads both halves concatenated. num_groups > 1 turns the FFN's two
// Linears into GroupedLinearLayer ([groups, in / groups, out / groups] weights). No pooler; eager only.
#include <fmt/format.h>

#include "blocks/blocks.hpp"
#include "families/bert_common.hpp"

namespace neurarch::families {
namespace convbert_impl {
namespace {

using namespace blocks;

struct Dims {
  std::int64_t hidden = 0;
  std::int64_t embedding = 0;
  std::int64_t heads = 0;       ///< attention heads left after head_ratio
  std::int64_t head_dim = 0;    ///< hidden / num_attention_heads
  std::int64_t all_head = 0;    ///< heads x head_dim: each half of the mixed output
  std::int64_t head_ratio = 0;  ///< as the reference corrects it when heads / head_ratio < 1
  std::int64_t kernel = 0;
  std::int64_t intermediate = 0;
  std::int64_t groups = 1;
  std::string activation;
  double hidden_dropout = 0.1;
  double attention_dropout = 0.1;
};

Dims read_dims(const Config& c) {
  Dims d;
  d.hidden = c.dim({"hidden_size"}, 768);
  d.embedding = c.dim({"embedding_size"}, 768);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 12);
  const std::int64_t ratio = c.dim({"head_ratio"}, 2);
  d.heads = heads / ratio < 1 ? 1 : heads / ratio;
  d.head_ratio = heads / ratio < 1 ? heads : ratio;
  d.head_dim = d.hidden / heads;
  d.all_head = d.heads * d.head_dim;
  d.kernel = c.dim({"conv_kernel_size"}, 9);
  d.intermediate = c.dim({"intermediate_size"}, 3072);
  d.groups = c.dim({"num_groups"}, 1);
  d.activation = c.text({"hidden_act"}, "gelu");
  d.hidden_dropout = c.number({"hidden_dropout_prob"}, 0.1);
  d.attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.1);
  return d;
}

/// The mixed attention of one layer -> [seq, hidden], before the residual.
Value mixed_attention(GraphBuilder& b, const Value& x, const Scope& module, const Dims& d, std::int64_t i) {
  const Scope self = module / "self";
  const Scope span = self / "key_conv_attn_layer";
  const std::int64_t seq = x.shape.front();
  // Span-aware keys: the depthwise convolution keeps the length (padding kernel / 2).
  auto depthwise = b.node(graph::NodeType::Conv1d, fmt::format("Span_Depthwise_{}", i), {seq, d.hidden}, {x},
                          span / "depthwise");
  b.at(depthwise).conv = graph::ConvAttrs{d.hidden, d.hidden, d.kernel, 1, d.kernel / 2, d.hidden, seq, seq, false};
  b.parameter(depthwise, (span / "depthwise")("weight"), {d.hidden, 1, d.kernel}, graph::TensorRole::Conv);
  auto pointwise = b.node(graph::NodeType::Conv1d, fmt::format("Span_Pointwise_{}", i), {seq, d.all_head},
                          {depthwise}, span / "pointwise");
  b.at(pointwise).conv = graph::ConvAttrs{d.hidden, d.all_head, 1, 1, 0, 1, seq, seq, false};
  b.parameter(pointwise, (span / "pointwise")("weight"), {d.all_head, d.hidden, 1}, graph::TensorRole::Conv);
  b.parameter(pointwise, span("bias"), {d.all_head, 1}, graph::TensorRole::Bias);
  // The span keys times the query give each head and token its own softmaxed kernel.
  auto kernels = dense(b, pointwise, fmt::format("Conv_Kernel_{}", i), self / "conv_kernel_layer", d.all_head,
                       d.heads * d.kernel, true);
  auto values = dense(b, x, fmt::format("Conv_Out_{}", i), self / "conv_out_layer", d.hidden, d.all_head, true);

  auto a = b.node(graph::NodeType::MultiHeadAttention, fmt::format("Attention_{}", i), {seq, d.hidden},
                  {x, kernels, values}, module);
  b.at(a).attention =
      graph::AttentionAttrs{d.heads, d.heads, d.head_dim, seq, seq, false, 0, d.attention_dropout, false, false};
  b.at(a).attention->sdpa = false;
  b.at(a).dropout = d.hidden_dropout;
  for (const char* proj : {"query", "key", "value"}) linear_tensors(b, a, self / proj, d.hidden, d.all_head, true);
  // output.dense reads the attention heads and the convolution heads side by side.
  linear_tensors(b, a, module / "output" / "dense", d.hidden, d.hidden, true, graph::Operand::Inner);
  if (d.head_ratio * d.all_head != d.hidden)
    b.fail(a, fmt::format("the {} attention and {} convolution channels do not concatenate to hidden_size {}",
                          d.all_head, (d.head_ratio - 1) * d.all_head, d.hidden));
  return a;
}

/// intermediate.dense -> act -> output.dense, grouped when num_groups > 1.
Value ffn(GraphBuilder& b, const Value& x, const Scope& layer, const Dims& d, std::int64_t i) {
  const Scope up = layer / "intermediate" / "dense";
  const Scope down = layer / "output" / "dense";
  if (d.groups == 1) {
    return feed_forward(b, x, fmt::format("FFN_{}", i),
                        {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation,
                         .module = layer, .up = up, .down = down, .output_dropout = d.hidden_dropout});
  }
  auto out = b.node(graph::NodeType::FeedForward, fmt::format("FFN_{}", i), x.shape, {x}, layer);
  b.at(out).feed_forward = graph::FeedForwardAttrs{d.hidden, d.intermediate, d.activation, false, 0.0};
  b.at(out).dropout = d.hidden_dropout;
  b.parameter(out, up("weight"), {d.groups, d.hidden / d.groups, d.intermediate / d.groups}, graph::TensorRole::Stacked);
  b.parameter(out, up("bias"), {d.intermediate}, graph::TensorRole::Bias);
  b.parameter(out, down("weight"), {d.groups, d.intermediate / d.groups, d.hidden / d.groups}, graph::TensorRole::Stacked);
  b.parameter(out, down("bias"), {d.hidden}, graph::TensorRole::Bias);
  if (d.groups < 1 || d.hidden % d.groups != 0 || d.intermediate % d.groups != 0)
    b.fail(out, fmt::format("num_groups {} must divide hidden_size {} and intermediate_size {}", d.groups, d.hidden,
                            d.intermediate));
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Dims d = read_dims(c);
  const std::int64_t vocab = c.dim({"vocab_size"}, 30522);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 12);
  const std::int64_t seq = in.sequence_length(positions);
  const Scope root = in.head == Head::Base ? Scope() : Scope("convbert");
  const Scope emb = root / "embeddings";

  auto x = b.input({seq}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", emb / "word_embeddings", vocab, d.embedding);
  const std::string word_embeddings = (emb / "word_embeddings")("weight");
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", positions, d.embedding);
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", c.dim({"type_vocab_size"}, 2),
                      d.embedding);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = d.hidden_dropout;
  if (d.embedding != d.hidden)
    x = dense(b, x, "Embedding_Projection", root / "embeddings_project", d.embedding, d.hidden, true);
  if (c.flag({"add_cross_attention"}, false))
    b.fail(x, "add_cross_attention: ConvBERT's decoder cross-attention (mixed attention over encoder states) is not "
              "modelled");

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "encoder" / "layer" / i;
    BlockNames names{i};
    auto a = mixed_attention(b, x, l / "attention", d, i);
    x = norm(b, add(b, a, x, names.add(1)), names.norm(1, NormKind::LayerNorm), {l / "attention" / "output" / "LayerNorm"});
    auto f = ffn(b, x, l, d, i);
    x = norm(b, add(b, f, x, names.add(2)), names.norm(2, NormKind::LayerNorm), {l / "output" / "LayerNorm"});
  }
  b.set_block(-1);
  if (d.intermediate > 0 && layers > 0)
    b.note("ConvBERT's dynamic convolution (unfold of conv_out_layer, per-head kernel softmax and product) is not "
           "counted in activations or FLOPs; its projections are");

  switch (in.head) {
    case Head::MaskedLM: {
      Scope gen("generator_predictions");
      auto h = dense(b, x, "MLM_Transform", gen / "dense", d.hidden, d.embedding, true, "gelu");
      h = norm(b, h, "MLM_LayerNorm", {gen / "LayerNorm"});
      const bool tie = c.flag({"tie_word_embeddings"}, true);
      return lm_head(b, h, "LM_Head",
                     {.module = Scope("generator_lm_head"), .hidden = d.embedding, .vocab = vocab, .bias = true,
                      .tied_weight = tie ? word_embeddings : std::string()});
    }
    case Head::SequenceClassification: {
      auto pooled = pooler(b, x, "Classifier_Dense", Scope("classifier") / "dense", d.hidden, d.activation);
      return classifier(b, pooled, "Classifier", Scope("classifier") / "out_proj", d.hidden, in.num_labels(), true);
    }
    case Head::TokenClassification:
      return classifier(b, x, "Classifier", Scope("classifier"), d.hidden, in.num_labels(), true);
    case Head::QuestionAnswering:
      return bert::qa_head(b, x, d.hidden, in.num_labels());
    default:
      return x;
  }
}

}  // namespace
}  // namespace convbert_impl

const Family& convbert_family() {
  static const Family family{"convbert", "models/convbert/modeling_convbert.py",
                             classes("ConvBert", heads::kEncoder), convbert_impl::build};
  return family;
}

}  // namespace neurarch::families
