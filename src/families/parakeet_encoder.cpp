// Parakeet's encoder (ParakeetEncoder in models/parakeet/modeling_parakeet.py, transformers 4.57.6, which the
// shared ground truth holds; 5.24 adds convolution_bias, True by default as 4.57.6 hard-codes): NVIDIA's
// FastConformer over log-mel frames [frames, num_mel_bins].
// - Sub-sampling by subsampling_factor (2^n): a Conv2d 1 -> channels over (time, mel) and n - 1 depthwise-
//   separable pairs (a depthwise Conv2d then a 1x1 Conv2d), each stride-2 step padded (k - 1) / 2, ReLU after
//   each stage; channels x (mel / factor) are flattened into `subsampling.linear`. Its layers are a ModuleList
//   with the ReLUs in it, so the convolutions sit at indices 0, 2, 3, 5, 6, ...
// - The input is scaled by sqrt(hidden) (scale_input); Transformer-XL relative positions: a sinusoid over the
//   2T - 1 distances (inv_freq: non-persistent) through relative_k_proj, with bias_u / bias_v per head.
// - Each block is the conformer's macaron with norm_* LayerNorms before each part; its convolution module is
//   FastSpeech2-Conformer's (fastspeech2::convolution_module), biases switched by convolution_bias.
// Frames default to 3,000 (30 s at the feature extractor's 10 ms hop); --seq sets them.
#include "families/parakeet_encoder.hpp"

#include <fmt/format.h>

#include "blocks/conv.hpp"
#include "core/error.hpp"
#include "families/fastspeech2_conformer.hpp"

namespace neurarch::families {
namespace parakeet_encoder_impl {
namespace {

using namespace blocks;
using graph::NodeType;

constexpr std::int64_t kDefaultFrames = 3000;

struct EncoderSpec {
  std::int64_t hidden = 1024, layers = 24, heads = 8, kv_heads = 8, intermediate = 4096;
  std::int64_t conv_kernel = 9, mel = 80, factor = 8, sub_channels = 256, sub_kernel = 3, sub_stride = 2;
  std::int64_t max_positions = 5000;
  std::string activation = "silu";
  bool attention_bias = true, conv_bias = true, scale_input = true;
  double dropout = 0.1, attention_dropout = 0.1, activation_dropout = 0.1;
};

EncoderSpec read_spec(const Config& c) {
  EncoderSpec s;
  s.hidden = c.dim({"hidden_size"}, s.hidden);
  s.layers = c.dim({"num_hidden_layers"}, s.layers);
  s.heads = c.dim({"num_attention_heads"}, s.heads);
  s.kv_heads = c.dim({"num_key_value_heads"}, s.heads);
  s.intermediate = c.dim({"intermediate_size"}, s.intermediate);
  s.conv_kernel = c.dim({"conv_kernel_size"}, s.conv_kernel);
  s.mel = c.dim({"num_mel_bins"}, s.mel);
  s.factor = c.dim({"subsampling_factor"}, s.factor);
  s.sub_channels = c.dim({"subsampling_conv_channels"}, s.sub_channels);
  s.sub_kernel = c.dim({"subsampling_conv_kernel_size"}, s.sub_kernel);
  s.sub_stride = c.dim({"subsampling_conv_stride"}, s.sub_stride);
  s.max_positions = c.dim({"max_position_embeddings"}, s.max_positions);
  s.activation = c.text({"hidden_act"}, s.activation);
  s.attention_bias = c.flag({"attention_bias"}, s.attention_bias);
  s.conv_bias = c.flag({"convolution_bias"}, s.conv_bias);
  s.scale_input = c.flag({"scale_input"}, s.scale_input);
  s.dropout = c.number({"dropout"}, s.dropout);
  s.attention_dropout = c.number({"attention_dropout"}, s.attention_dropout);
  s.activation_dropout = c.number({"activation_dropout"}, s.activation_dropout);
  if ((s.factor & (s.factor - 1)) != 0)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'subsampling_factor'",
                fmt::format("{} is not a power of two (the reference stacks log2(factor) stride-2 stages)", s.factor));
  return s;
}

// A parameter-free Linear node that only applies an activation (the ModuleList's ReLUs).
Value activation(GraphBuilder& b, const Value& x, const std::string& name, const std::string& act) {
  auto out = b.node(NodeType::Linear, name, x.shape, {x});
  b.at(out).activation = act;
  return out;
}

Value subsampling(GraphBuilder& b, const Value& features, const EncoderSpec& s) {
  const Scope sub("subsampling");
  const std::int64_t stages = [&] {
    std::int64_t n = 0;
    for (std::int64_t f = s.factor; f > 1; f /= 2) ++n;
    return n;
  }();
  const std::int64_t pad = (s.sub_kernel - 1) / 2, ch = s.sub_channels;
  Value map{features.node, {1, features.shape[0], features.shape[1]}};  // unsqueeze(1): one channel
  std::int64_t index = 0;
  map = conv2d(b, map, "Subsample_Conv_0",
               {.module = sub / "layers" / index, .in = 1, .out = ch, .kernel = s.sub_kernel, .stride = s.sub_stride,
                .padding = pad});
  map = activation(b, map, "Subsample_ReLU_0", "relu");
  index += 2;
  for (std::int64_t k = 1; k < stages; ++k) {
    map = conv2d(b, map, fmt::format("Subsample_Depthwise_{}", k),
                 {.module = sub / "layers" / index, .in = ch, .out = ch, .kernel = s.sub_kernel,
                  .stride = s.sub_stride, .padding = pad, .groups = ch});
    map = conv2d(b, map, fmt::format("Subsample_Pointwise_{}", k),
                 {.module = sub / "layers" / (index + 1), .in = ch, .out = ch});
    map = activation(b, map, fmt::format("Subsample_ReLU_{}", k), "relu");
    index += 3;
  }
  // The linear is sized for num_mel_bins // factor frequencies; the convolutions give that for a mel count the
  // factor divides, and the reference's Linear refuses any other.
  const std::int64_t sized = ch * (s.mel / s.factor);
  const std::int64_t frames = map.shape[1], flattened = map.shape[0] * map.shape[2];
  auto x = dense(b, Value{map.node, {frames, flattened}}, "Subsample_Projection", sub / "linear", sized, s.hidden,
                 true);
  if (flattened != sized)
    b.fail(x, fmt::format("the sub-sampling gives {} features per frame; subsampling.linear expects {}", flattened,
                          sized));
  return x;
}

Value feed_forward_half(GraphBuilder& b, const Value& x, std::int64_t i, int k, const Scope& l, const EncoderSpec& s) {
  auto h = norm(b, x, fmt::format("LayerNorm_{}_FFN{}", i, k), {l / fmt::format("norm_feed_forward{}", k)});
  const Scope m = l / fmt::format("feed_forward{}", k);
  // The residual adds 0.5 * ffn(x): a scalar product autograd keeps nothing for.
  h = feed_forward(b, h, fmt::format("FFN_{}_{}", i, k),
                   {.hidden = s.hidden, .intermediate = s.intermediate, .activation = s.activation, .module = m,
                    .up = m / "linear1", .down = m / "linear2", .bias = s.attention_bias,
                    .down_bias = s.attention_bias, .inner_dropout = s.activation_dropout});
  return add(b, h, x, fmt::format("Add_{}_FFN{}", i, k));
}

Value self_attention(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const EncoderSpec& s) {
  auto h = norm(b, x, fmt::format("LayerNorm_{}_Attention", i), {l / "norm_self_att"});
  const Scope attn = l / "self_attn";
  auto a = attention(b, h, BlockNames{i}.attention(),
                     {.hidden = s.hidden, .heads = s.heads, .kv_heads = s.kv_heads, .module = attn,
                      .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "o_proj",
                      .qkv_bias = s.attention_bias, .o_bias = s.attention_bias, .dropout = s.attention_dropout});
  const std::int64_t head_dim = s.hidden / s.heads;
  const std::int64_t frames = h.shape.front();
  // Transformer-XL's term: q + bias_v against the [2T - 1, hidden] sinusoid through relative_k_proj, a
  // [q, 2T - 1] product per head before the shift, passed to the attention as its additive mask.
  linear_tensors(b, a, attn / "relative_k_proj", s.hidden, s.heads * head_dim, false, graph::Operand::Positions);
  b.parameter(a, attn("bias_u"), {s.heads, head_dim}, graph::TensorRole::Bias);
  b.parameter(a, attn("bias_v"), {s.heads, head_dim}, graph::TensorRole::Bias);
  auto& attrs = *b.at(a).attention;
  attrs.relative_span = 2 * frames - 1;
  attrs.c2p = true;
  return add(b, a, x, fmt::format("Add_{}_Attention", i));
}

Value convolution_module(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const EncoderSpec& s) {
  auto h = norm(b, x, fmt::format("LayerNorm_{}_Conv", i), {l / "norm_conv"});
  h = fastspeech2::convolution_module(b, h, i,
                                      {.module = l / "conv", .channels = s.hidden, .kernel = s.conv_kernel,
                                       .activation = s.activation, .bias = s.conv_bias});
  return add(b, h, x, fmt::format("Add_{}_Conv", i));
}

Value build(const BuildInput& in, GraphBuilder& b) { return parakeet::encoder(in, b, in.config); }

}  // namespace
}  // namespace parakeet_encoder_impl
using namespace parakeet_encoder_impl;

namespace parakeet {

Value encoder(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const parakeet_encoder_impl::EncoderSpec s = parakeet_encoder_impl::read_spec(c);
  const std::int64_t frames = in.requested_seq ? *in.requested_seq : parakeet_encoder_impl::kDefaultFrames;
  auto x = b.input({frames, s.mel}, "audio_features", "input_features");
  x = parakeet_encoder_impl::subsampling(b, x, s);
  // hidden_states * sqrt(hidden) (scale_input) and the dropout after it: elementwise, nothing stored.
  b.at(x).dropout = s.dropout;
  if (x.shape.front() > s.max_positions)
    b.fail(x, fmt::format("{} frames after sub-sampling exceed max_position_embeddings {}: the relative positions "
                          "refuse them",
                          x.shape.front(), s.max_positions));
  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("layers") / i;
    x = parakeet_encoder_impl::feed_forward_half(b, x, i, 1, l, s);
    x = parakeet_encoder_impl::self_attention(b, x, i, l, s);
    x = parakeet_encoder_impl::convolution_module(b, x, i, l, s);
    x = parakeet_encoder_impl::feed_forward_half(b, x, i, 2, l, s);
    x = norm(b, x, fmt::format("LayerNorm_{}_Final", i), {l / "norm_out"});
  }
  b.set_block(-1);
  return x;
}

}  // namespace parakeet

const Family& parakeet_encoder_family() {
  static const Family family{"parakeet_encoder", "models/parakeet/modeling_parakeet.py",
                             {{"ParakeetEncoder", Head::Base}}, parakeet_encoder_impl::build};
  return family;
}

}  // namespace neurarch::families
