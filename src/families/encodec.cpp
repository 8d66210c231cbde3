// EnCodec (EncodecModel in models/encodec/modeling_encodec.py, transformers 4.47.1 with PyTorch 1.13): Meta's
// SEANet codec over a waveform.
// - Every convolution is an EncodecConv1d: a Conv1d (`.conv`) under weight norm (weight_g [out, 1, 1] and
//   weight_v, as torch.nn.utils.weight_norm names them) or followed by GroupNorm(1) `.norm`
//   (norm_type time_group_norm), padded so that a stride-s conv gives ceil(L / s) frames (causally with
//   use_causal_conv). Transposed convs trim kernel - stride frames back to L * s.
// - Encoder (`encoder.layers`, a ModuleList with its ELUs): conv (kernel_size) to num_filters; per ratio of
//   reversed(upsampling_ratios) num_residual_layers SEANet blocks (ELU, conv to dim / compress with
//   residual_kernel_size dilated dilation_growth_rate^j, ELU, kernel-1 conv back, a kernel-1 conv shortcut when
//   use_conv_shortcut), ELU and a stride-ratio conv (kernel 2 ratio) doubling the width; an LSTM
//   (num_lstm_layers, with a skip), ELU and a conv (last_kernel_size) to hidden_size. The decoder mirrors it with
//   ConvTranspose1d.
// - Quantizer: num_quantizers (from target_bandwidths[-1], frame_rate and log2(codebook_size)) Euclidean
//   codebooks whose tables are buffers (inited, cluster_size, embed, embed_avg: EMA-updated, not trained).
// The waveform defaults to one second at sampling_rate.
#include "families/encodec.hpp"

#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "blocks/group_norm.hpp"
#include "blocks/lstm.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"

namespace neurarch::families {
namespace encodec_impl {
namespace {

using namespace blocks;
using graph::NodeType;

using encodec::ConvNorm;
using encodec::Seanet;

struct Spec : Seanet {
  std::int64_t codebook_size = 1024, codebook_dim = 128, quantizers = 32, rate = 24000;
};

Spec read_spec(const Config& c) {
  Spec s;
  s.channels = c.dim({"audio_channels"}, s.channels);
  s.hidden = c.dim({"hidden_size"}, s.hidden);
  s.filters = c.dim({"num_filters"}, s.filters);
  s.residual_layers = c.integer({"num_residual_layers"}, s.residual_layers);
  s.kernel = c.dim({"kernel_size"}, s.kernel);
  s.last_kernel = c.dim({"last_kernel_size"}, s.last_kernel);
  s.residual_kernel = c.dim({"residual_kernel_size"}, s.residual_kernel);
  s.growth = c.dim({"dilation_growth_rate"}, s.growth);
  s.compress = c.dim({"compress"}, s.compress);
  s.lstm_layers = c.dim({"num_lstm_layers"}, s.lstm_layers);
  s.codebook_size = c.dim({"codebook_size"}, s.codebook_size);
  s.codebook_dim = c.dim({"codebook_dim"}, s.hidden);
  s.rate = c.dim({"sampling_rate"}, s.rate);
  s.ratios = size_list(c, "upsampling_ratios", s.ratios);
  s.shortcut = c.flag({"use_conv_shortcut"}, s.shortcut);
  const std::string norm = c.text({"norm_type"}, "weight_norm");
  if (norm != "weight_norm" && norm != "time_group_norm")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'norm_type'",
                fmt::format("'{}' is neither 'weight_norm' nor 'time_group_norm'", norm));
  s.norm = norm == "weight_norm" ? ConvNorm::WeightNorm : ConvNorm::GroupNorm;
  // num_quantizers = 1000 * target_bandwidths[-1] // (frame_rate * codebook_nbits).
  double bandwidth = 24.0;
  if (const auto* bw = c.raw({"target_bandwidths"})) {
    if (!bw->is_array() || bw->empty() || !bw->back().is_number())
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'target_bandwidths'", "expected a list of numbers");
    bandwidth = bw->back().get<double>();
  } else {
    c.record_default("target_bandwidths", {1.5, 3.0, 6.0, 12.0, 24.0});
  }
  const std::int64_t hop = std::accumulate(s.ratios.begin(), s.ratios.end(), std::int64_t{1}, std::multiplies<>());
  const auto frame_rate = static_cast<std::int64_t>(std::ceil(static_cast<double>(s.rate) / static_cast<double>(hop)));
  const auto nbits = static_cast<std::int64_t>(std::ceil(std::log2(static_cast<double>(s.codebook_size))));
  s.quantizers = static_cast<std::int64_t>(std::floor(1000.0 * bandwidth / static_cast<double>(frame_rate * nbits)));
  if (s.quantizers < 1)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'target_bandwidths'",
                fmt::format("{} kbps gives no codebook at {} frames/s of {} bits", bandwidth, frame_rate, nbits));
  return s;
}

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// EncodecConv1d: the padding gives ceil(L / stride) frames whatever the kernel and dilation.
Value seanet_conv(GraphBuilder& b, const Value& x, const std::string& name, const Scope& m, const Seanet& s,
                  std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride = 1,
                  std::int64_t dilation = 1, bool bias = true) {
  const Scope conv = m / "conv";
  const bool weight_norm = s.norm == ConvNorm::WeightNorm;
  auto h = conv1d(b, x, name,
                  {.module = conv, .in_channels = in, .out_channels = out, .kernel = kernel, .stride = stride,
                   .dilation = dilation, .bias = bias, .custom_weight = weight_norm});
  if (weight_norm) {
    b.parameter(h, conv("weight_g"), {out, 1, 1}, graph::TensorRole::Other);
    b.parameter(h, conv("weight_v"), {out, in, kernel}, graph::TensorRole::Conv);
  }
  const std::int64_t frames = ceil_div(x.shape.front(), stride);
  b.at(h).conv->out_len = frames;
  b.at(h).out.front() = frames;
  h.shape.front() = frames;
  if (s.norm == ConvNorm::GroupNorm) {
    auto n = group_norm(b, Value{h.node, {out, 1, frames}}, name + "_GroupNorm", m / "norm", 1);
    h = Value{n.node, {frames, out}};
  }
  return h;
}

Value seanet_conv_transpose(GraphBuilder& b, const Value& x, const std::string& name, const Scope& m,
                            const Seanet& s, std::int64_t in, std::int64_t out, std::int64_t kernel,
                            std::int64_t stride, std::int64_t groups = 1, bool bias = true) {
  const Scope conv = m / "conv";
  const std::int64_t frames = x.shape.front();
  // One matmul per input frame, [frames, out * kernel]; the overlapped sum is trimmed to frames * stride.
  auto h = conv1d(b, x, name,
                  {.module = conv, .in_channels = in, .out_channels = out * kernel, .groups = groups, .bias = false,
                   .custom_weight = true});
  if (s.norm == ConvNorm::WeightNorm) {
    b.parameter(h, conv("weight_g"), {in, 1, 1}, graph::TensorRole::Other);
    b.parameter(h, conv("weight_v"), {in, out / groups, kernel}, graph::TensorRole::Conv);
  } else {
    b.parameter(h, conv("weight"), {in, out / groups, kernel}, graph::TensorRole::Conv);
  }
  if (bias) b.parameter(h, conv("bias"), {out}, graph::TensorRole::Bias);
  Value y{h.node, {frames * stride, out}};
  if (s.norm == ConvNorm::GroupNorm) {
    auto n = group_norm(b, Value{h.node, {out, 1, frames * stride}}, name + "_GroupNorm", m / "norm", 1);
    y = Value{n.node, {frames * stride, out}};
  }
  return y;
}

Value elu(GraphBuilder& b, const Value& x, const std::string& name) {
  auto out = b.node(NodeType::Linear, name, x.shape, {x});
  b.at(out).activation = "elu";
  return out;
}

Value resnet_block(GraphBuilder& b, const Value& x, const std::string& label, const Scope& m, const Seanet& s,
                   std::int64_t dim, std::int64_t dilation) {
  const std::int64_t hidden = dim / s.compress;
  auto h = elu(b, x, label + "_ELU_1");
  h = seanet_conv(b, h, label + "_Conv_1", m / "block" / 1, s, dim, hidden, s.residual_kernel, 1, dilation);
  h = elu(b, h, label + "_ELU_2");
  h = seanet_conv(b, h, label + "_Conv_2", m / "block" / 3, s, hidden, dim, 1);
  const Value skip = s.shortcut ? seanet_conv(b, x, label + "_Shortcut", m / "shortcut", s, dim, dim, 1) : x;
  return add(b, h, skip, label + "_Add");
}

Value lstm_with_skip(GraphBuilder& b, const Value& x, const std::string& label, const Scope& m, const Seanet& s,
                     std::int64_t dim) {
  auto h = lstm(b, x, label, {.module = m / "lstm", .input = dim, .hidden = dim, .layers = s.lstm_layers});
  return add(b, h, x, label + "_Skip");
}

}  // namespace
}  // namespace encodec_impl
using namespace encodec_impl;

namespace encodec {

Value seanet_encoder(GraphBuilder& b, const Value& samples, const Seanet& s, const Scope& enc) {
  std::int64_t index = 0;
  auto x = seanet_conv(b, samples, "Encoder_Conv_In", enc / index++, s, s.channels, s.filters, s.kernel);
  std::int64_t dim = s.filters;
  int block = 0;
  for (auto r = s.ratios.rbegin(); r != s.ratios.rend(); ++r, ++block) {
    b.set_block(block);
    const std::string label = fmt::format("Encoder_Block_{}", block);
    std::int64_t dilation = 1;
    for (std::int64_t j = 0; j < s.residual_layers; ++j, dilation *= s.growth)
      x = resnet_block(b, x, fmt::format("{}_Residual_{}", label, j), enc / index++, s, dim, dilation);
    x = elu(b, x, label + "_ELU");
    ++index;
    x = seanet_conv(b, x, label + "_Downsample", enc / index++, s, dim, 2 * dim, 2 * *r, *r);
    dim *= 2;
  }
  b.set_block(-1);
  if (s.lstm_layers > 0) x = lstm_with_skip(b, x, "Encoder_LSTM", enc / index++, s, dim);
  x = elu(b, x, "Encoder_ELU");
  ++index;
  return seanet_conv(b, x, "Encoder_Conv_Out", enc / index, s, dim, s.hidden, s.last_kernel);
}

Value seanet_decoder(GraphBuilder& b, const Value& latents, const Seanet& s, const Scope& dec) {
  std::int64_t index = 0;
  std::int64_t dim = s.filters << s.ratios.size();
  auto x = seanet_conv(b, latents, "Decoder_Conv_In", dec / index++, s, s.hidden, dim, s.kernel);
  if (s.lstm_layers > 0) x = lstm_with_skip(b, x, "Decoder_LSTM", dec / index++, s, dim);
  int block = b.next_block();
  for (std::size_t i = 0; i < s.ratios.size(); ++i, ++block) {
    b.set_block(block);
    const std::string label = fmt::format("Decoder_Block_{}", i);
    x = elu(b, x, label + "_ELU");
    ++index;
    x = seanet_conv_transpose(b, x, label + "_Upsample", dec / index++, s, dim, dim / 2, 2 * s.ratios[i], s.ratios[i]);
    dim /= 2;
    std::int64_t dilation = 1;
    for (std::int64_t j = 0; j < s.residual_layers; ++j, dilation *= s.growth)
      x = resnet_block(b, x, fmt::format("{}_Residual_{}", label, j), dec / index++, s, dim, dilation);
  }
  b.set_block(-1);
  x = elu(b, x, "Decoder_ELU");
  ++index;
  return seanet_conv(b, x, "Decoder_Conv_Out", dec / index, s, dim, s.channels, s.last_kernel);
}

Value conv(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const Seanet& s,
           std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride, bool bias) {
  return seanet_conv(b, x, name, module, s, in, out, kernel, stride, 1, bias);
}

Value conv_transpose(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, const Seanet& s,
                     std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride, std::int64_t groups,
                     bool bias) {
  return seanet_conv_transpose(b, x, name, module, s, in, out, kernel, stride, groups, bias);
}

Value model(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const Spec s = read_spec(c);
  const std::int64_t samples = in.requested_seq ? *in.requested_seq : s.rate;
  auto wave = b.input({samples * s.channels}, "audio", "input_values");
  auto x = seanet_encoder(b, Value{wave.node, {samples, s.channels}}, s, Scope("encoder") / "layers");

  // Residual vector quantization against EMA codebooks (buffers): each stage codes what the previous left.
  Value quantized;
  for (std::int64_t q = 0; q < s.quantizers; ++q) {
    const Scope book = Scope("quantizer") / "layers" / q / "codebook";
    auto code = b.node(NodeType::Embedding, fmt::format("Quantizer_{}", q), {x.shape.front(), s.codebook_dim}, {x},
                       book);
    b.buffer(code, book("inited"), {1}, b.param_dtype());
    b.buffer(code, book("cluster_size"), {s.codebook_size}, b.param_dtype());
    b.buffer(code, book("embed"), {s.codebook_size, s.codebook_dim}, b.param_dtype());
    b.buffer(code, book("embed_avg"), {s.codebook_size, s.codebook_dim}, b.param_dtype());
    quantized = q == 0 ? code : add(b, code, quantized, fmt::format("Quantizer_{}_Sum", q));
  }
  return seanet_decoder(b, quantized, s, Scope("decoder") / "layers");
}

}  // namespace encodec

namespace encodec_impl {
namespace {
Value build(const BuildInput& in, GraphBuilder& b) { return encodec::model(in, b, in.config); }
}  // namespace
}  // namespace encodec_impl

const Family& encodec_family() {
  static const Family family{"encodec", "models/encodec/modeling_encodec.py", classes("Encodec"), encodec_impl::build};
  return family;
}

}  // namespace neurarch::families
