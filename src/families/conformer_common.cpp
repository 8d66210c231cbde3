#include "families/conformer_common.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "core/error.hpp"

namespace neurarch::families::conformer {
namespace conformer_common_impl {
namespace {

using namespace blocks;

Value half_step_ffn(GraphBuilder& b, const Value& x, std::int64_t i, int k, const Scope& l, const std::string& ffn,
                    const LayerSpec& s) {
  auto h = norm(b, x, fmt::format("LayerNorm_{}_FFN{}", i, k), {l / (ffn + "_layer_norm")});
  const Scope module = l / ffn;
  // The residual adds 0.5 * ffn(x): a scalar product autograd keeps nothing for.
  h = feed_forward(b, h, fmt::format("FFN_{}_{}", i, k), {.hidden = s.hidden, .intermediate = s.intermediate,
                                                         .activation = s.activation, .module = module,
                                                         .up = module / "intermediate_dense",
                                                         .down = module / "output_dense",
                                                         .output_dropout = s.hidden_dropout,
                                                         .inner_dropout = s.activation_dropout});
  return add(b, h, x, fmt::format("Add_{}_FFN{}", i, k));
}

Value self_attention(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const LayerSpec& s) {
  auto h = norm(b, x, fmt::format("LayerNorm_{}_Attention", i), {l / "self_attn_layer_norm"});
  const Scope attn = l / "self_attn";
  auto a = attention(b, h, BlockNames{i}.attention(),
                     {.hidden = s.hidden, .heads = s.heads, .module = attn, .q = attn / "linear_q",
                      .k = attn / "linear_k", .v = attn / "linear_v", .o = attn / "linear_out",
                      .dropout = s.attention_dropout, .output_dropout = s.attention_dropout,
                      .rotary = s.positions == Positions::Rotary});
  const std::int64_t head_dim = s.heads > 0 ? s.hidden / s.heads : 0;
  const std::int64_t frames = h.shape.empty() ? 0 : h.shape.front();
  auto& attrs = *b.at(a).attention;
  // The reference computes its scores with matmul and softmax itself: no SDPA path.
  attrs.sdpa = false;
  switch (s.positions) {
    case Positions::Relative:
      // Transformer-XL's term: q + pos_bias_v against the [2T - 1, hidden] sinusoid through linear_pos,
      // a [q, 2T - 1] product per head before the shift, like DeBERTa's c2p.
      linear_tensors(b, a, attn / "linear_pos", s.hidden, s.hidden, false, graph::Operand::Positions);
      b.parameter(a, attn("pos_bias_u"), {s.heads, head_dim}, graph::TensorRole::Other);
      b.parameter(a, attn("pos_bias_v"), {s.heads, head_dim}, graph::TensorRole::Other);
      attrs.relative_span = 2 * frames - 1;
      attrs.c2p = true;
      break;
    case Positions::RelativeKey:
      // Every query against a gathered [T, T, head_dim] table of clamped distances: a [q, T] product
      // per head added to the scores.
      b.parameter(a, attn("distance_embedding.weight"), {s.left_positions + s.right_positions + 1, head_dim}, graph::TensorRole::Embedding);
      attrs.relative_span = frames;
      attrs.c2p = true;
      break;
    case Positions::None:
    case Positions::Rotary:
      break;
  }
  return add(b, a, x, fmt::format("Add_{}_Attention", i));
}

Value convolution_module(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const LayerSpec& s) {
  const Scope m = l / "conv_module";
  auto h = norm(b, x, fmt::format("LayerNorm_{}_Conv", i), {m / "layer_norm"});
  h = conv1d(b, h, fmt::format("Pointwise_Conv_{}_1", i),
             {.module = m / "pointwise_conv1", .in_channels = s.hidden, .out_channels = 2 * s.hidden, .bias = false});
  h = glu(b, h, fmt::format("GLU_{}", i));
  // Causal: F.pad(kernel - 1, 0) on the left only, so the output keeps every frame, as the
  // symmetric (kernel - 1) / 2 of the conformer does.
  const std::int64_t frames = h.shape.empty() ? 0 : h.shape.front();
  auto d = conv1d(b, h, fmt::format("Depthwise_Conv_{}", i),
                  {.module = m / "depthwise_conv", .in_channels = s.hidden, .out_channels = s.hidden,
                   .kernel = s.depthwise_kernel,
                   .padding = s.causal_depthwise ? s.depthwise_kernel - 1 : (s.depthwise_kernel - 1) / 2,
                   .groups = s.hidden, .bias = false});
  if (s.causal_depthwise) {
    b.at(d).conv->out_len = frames;
    b.at(d).out.front() = frames;
    d.shape.front() = frames;
    h = norm(b, d, fmt::format("LayerNorm_{}_Depthwise", i), {m / "depthwise_layer_norm"});
    h = b.node(graph::NodeType::Linear, fmt::format("Conv_Activation_{}", i), h.shape, {h});
    b.at(h).activation = s.activation;
  } else {
    h = batch_norm1d(b, d, fmt::format("BatchNorm_{}", i), m / "batch_norm", s.activation);
  }
  h = conv1d(b, h, fmt::format("Pointwise_Conv_{}_2", i),
             {.module = m / "pointwise_conv2", .in_channels = s.hidden, .out_channels = s.hidden, .bias = false});
  b.at(h).dropout = s.conv_dropout;
  return add(b, h, x, fmt::format("Add_{}_Conv", i));
}

}  // namespace
}  // namespace conformer_common_impl
using namespace conformer_common_impl;

Positions positions_from(const Config& c, const std::string& fallback) {
  // null (present) means no position embeddings; absent means the config class's default.
  const bool null = c.json().contains("position_embeddings_type") && !c.raw({"position_embeddings_type"});
  const std::string kind = null ? "" : c.text({"position_embeddings_type"}, fallback);
  if (kind.empty()) return Positions::None;
  if (kind == "relative") return Positions::Relative;
  if (kind == "rotary") return Positions::Rotary;
  if (kind == "relative_key") return Positions::RelativeKey;
  throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'position_embeddings_type'",
              fmt::format("'{}' is none of 'relative', 'rotary', 'relative_key' or null", kind));
}

Value layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const LayerSpec& s) {
  auto h = conformer_common_impl::half_step_ffn(b, x, i, 1, l, "ffn1", s);
  h = conformer_common_impl::self_attention(b, h, i, l, s);
  h = conformer_common_impl::convolution_module(b, h, i, l, s);
  h = conformer_common_impl::half_step_ffn(b, h, i, 2, l, "ffn2", s);
  return norm(b, h, fmt::format("LayerNorm_{}_Final", i), {l / "final_layer_norm"});
}

}  // namespace neurarch::families::conformer
