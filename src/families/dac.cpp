// DAC, the Descript audio codec (DacModel in models/dac/modeling_dac.py, transformers 4.47.1): a convolutional
// encoder, a residual vector quantizer and a mirrored decoder over a mono waveform. The reference builds plain
// Conv1d weights (weight norm is only applied when converting the original checkpoints).
// - Encoder: conv1 (1 -> encoder_hidden_size, kernel 7); one block per downsampling ratio s, each three residual
//   units (Snake, kernel-7 conv dilated 1 / 3 / 9 padded to keep the length, Snake, kernel-1 conv, residual sum)
//   at half the block's width, a Snake and a stride-s conv (kernel 2s, padding ceil(s / 2)) doubling the width;
//   a last Snake and conv2 (kernel 3) to hidden_size.
// - Quantizer: n_codebooks stages, each in_proj (kernel-1 conv to codebook_dim), the nearest codebook row
//   (codebook: nn.Embedding [codebook_size, codebook_dim]) and out_proj back to hidden_size; each stage
//   quantizes what the previous ones left.
// - Decoder: conv1 (hidden_size -> decoder_hidden_size, kernel 7); per upsampling ratio s a Snake, a
//   ConvTranspose1d (kernel 2s, stride s, padding ceil(s / 2)) halving the width and three residual units; a last
//   Snake, conv2 to one channel and tanh.
// Snake (x + sin^2(alpha x) / alpha, alpha a [1, C, 1] parameter) is a LayerScale-type node: it owns a
// per-channel parameter and keeps its input for backward. The waveform defaults to one second at sampling_rate.
#include <fmt/format.h>

#include "blocks/conv.hpp"
#include "blocks/upsample.hpp"
#include "families/config_lists.hpp"
#include "families/dac.hpp"

namespace neurarch::families {
namespace dac_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value snake(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module) {
  auto out = b.node(NodeType::LayerScale, name, x.shape, {x}, module);
  b.parameter(out, module("alpha"), {1, x.shape.back(), 1}, graph::TensorRole::Other);
  return out;
}

// A length-preserving Conv1d: padding (kernel - 1) * dilation / 2.
Value same_conv(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                std::int64_t out, std::int64_t kernel, std::int64_t dilation = 1) {
  return conv1d(b, x, name,
                {.module = module, .in_channels = in, .out_channels = out, .kernel = kernel,
                 .padding = (kernel - 1) * dilation / 2, .dilation = dilation});
}

Value residual_unit(GraphBuilder& b, const Value& x, const std::string& label, const Scope& unit, std::int64_t dim,
                    std::int64_t dilation) {
  auto h = snake(b, x, label + "_Snake_1", unit / "snake1");
  h = same_conv(b, h, label + "_Conv_1", unit / "conv1", dim, dim, 7, dilation);
  h = snake(b, h, label + "_Snake_2", unit / "snake2");
  h = same_conv(b, h, label + "_Conv_2", unit / "conv2", dim, dim, 1);
  return add(b, h, x, label + "_Add");
}

Value residual_units(GraphBuilder& b, Value x, const std::string& label, const Scope& block, std::int64_t dim) {
  const std::int64_t dilations[] = {1, 3, 9};
  for (int u = 0; u < 3; ++u)
    x = residual_unit(b, x, fmt::format("{}_Unit_{}", label, u + 1), block / fmt::format("res_unit{}", u + 1), dim,
                      dilations[u]);
  return x;
}

}  // namespace
}  // namespace dac_impl
using namespace dac_impl;

namespace dac {

Spec read_spec(const Config& c) {
  Spec s;
  s.encoder_dim = c.dim({"encoder_hidden_size"}, s.encoder_dim);
  s.down = size_list(c, "downsampling_ratios", s.down);
  s.decoder_dim = c.dim({"decoder_hidden_size"}, s.decoder_dim);
  s.up = size_list(c, "upsampling_ratios", s.up);
  s.hidden = c.dim({"hidden_size"}, s.hidden);
  return s;
}

Value encoder(GraphBuilder& b, const Value& wave, const Spec& s, const Scope& enc) {
  auto x = conv1d(b, wave, "Encoder_Conv_1",
                  {.module = enc / "conv1", .in_channels = 1, .out_channels = s.encoder_dim, .kernel = 7, .padding = 3},
                  TimeLayout::Mono);
  std::int64_t dim = s.encoder_dim;
  const int first = b.next_block();
  for (std::size_t i = 0; i < s.down.size(); ++i) {
    b.set_block(first + static_cast<int>(i));
    const Scope block = enc / "block" / static_cast<std::int64_t>(i);
    const std::string label = fmt::format("Encoder_Block_{}", i);
    const std::int64_t r = s.down[i];
    x = residual_units(b, x, label, block, dim);
    x = snake(b, x, label + "_Snake", block / "snake1");
    x = conv1d(b, x, label + "_Downsample",
               {.module = block / "conv1", .in_channels = dim, .out_channels = 2 * dim, .kernel = 2 * r, .stride = r,
                .padding = (r + 1) / 2});
    dim *= 2;
  }
  b.set_block(-1);
  x = snake(b, x, "Encoder_Snake", enc / "snake1");
  return same_conv(b, x, "Encoder_Conv_2", enc / "conv2", dim, s.hidden, 3);
}

Value decoder(GraphBuilder& b, const Value& latents, const Spec& s, const Scope& dec, bool tanh) {
  auto x = same_conv(b, latents, "Decoder_Conv_1", dec / "conv1", latents.shape.back(), s.decoder_dim, 7);
  std::int64_t dim = s.decoder_dim;
  const int first = b.next_block();
  for (std::size_t i = 0; i < s.up.size(); ++i) {
    b.set_block(first + static_cast<int>(i));
    const Scope block = dec / "block" / static_cast<std::int64_t>(i);
    const std::string label = fmt::format("Decoder_Block_{}", i);
    const std::int64_t r = s.up[i];
    x = snake(b, x, label + "_Snake", block / "snake1");
    x = conv_transpose1d(b, x, label + "_Upsample", block / "conv_t1", dim, dim / 2, 2 * r, r, (r + 1) / 2);
    dim /= 2;
    x = residual_units(b, x, label, block, dim);
  }
  b.set_block(-1);
  x = snake(b, x, "Decoder_Snake", dec / "snake1");
  x = same_conv(b, x, "Decoder_Conv_2", dec / "conv2", dim, 1, 7);
  if (tanh) b.at(x).activation = "tanh";
  return x;
}

}  // namespace dac

namespace dac_impl {
namespace {

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const dac::Spec s = dac::read_spec(c);
  const std::int64_t codebooks = c.dim({"n_codebooks"}, 9);
  const std::int64_t codebook_size = c.dim({"codebook_size"}, 1024);
  const std::int64_t codebook_dim = c.dim({"codebook_dim"}, 8);
  const std::int64_t rate = c.dim({"sampling_rate"}, 16000);

  auto wave = b.input({in.requested_seq ? *in.requested_seq : rate}, "audio", "input_values");
  auto x = dac::encoder(b, wave, s, Scope("encoder"));

  // Residual vector quantization: each stage codes what the previous stages left.
  Value quantized, residual = x;
  for (std::int64_t q = 0; q < codebooks; ++q) {
    const Scope stage = Scope("quantizer") / "quantizers" / q;
    auto latents = conv1d(b, residual, fmt::format("Quantizer_{}_In", q),
                          {.module = stage / "in_proj", .in_channels = s.hidden, .out_channels = codebook_dim});
    auto code = b.node(NodeType::Embedding, fmt::format("Quantizer_{}_Codebook", q), latents.shape, {latents},
                       stage / "codebook");
    // Read by index (the nearest row's); the distances to every row that choose it are not costed.
    b.parameter(code, (stage / "codebook")("weight"), {codebook_size, codebook_dim}, graph::TensorRole::Embedding);
    auto out = conv1d(b, code, fmt::format("Quantizer_{}_Out", q),
                      {.module = stage / "out_proj", .in_channels = codebook_dim, .out_channels = s.hidden});
    quantized = q == 0 ? out : add(b, out, quantized, fmt::format("Quantizer_{}_Sum", q));
    if (q + 1 < codebooks) residual = add(b, residual, out, fmt::format("Quantizer_{}_Residual", q));
  }
  return dac::decoder(b, quantized, s, Scope("decoder"), true);
}

}  // namespace
}  // namespace dac_impl

const Family& dac_family() {
  static const Family family{"dac", "models/dac/modeling_dac.py", classes("Dac"), dac_impl::build};
  return family;
}

}  // namespace neurarch::families
