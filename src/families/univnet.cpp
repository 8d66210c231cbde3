// UnivNet (UnivNetModel in models/univnet/modeling_univnet.py, transformers 4.47.1; 5.24 checked): a GAN vocoder
// that turns a noise sequence into a waveform conditioned on a log-mel spectrogram through location-variable
// convolutions (LVC). Weight norm is applied only by apply_weight_norm(), so the saved names are plain.
// - conv_pre: Conv1d(model_in_channels -> model_hidden_channels, 7) over the noise (reflect padding 3).
// - resblocks.<i> (one per resblock_stride_sizes entry): leaky ReLU, convt_pre (ConvTranspose1d of kernel 2 s,
//   stride s: the frames times s), a kernel_predictor over the spectrogram (input_conv of kernel 5, residual
//   blocks of two kernel-size convs whose width is model_in_channels, as the reference builds them, then
//   kernel_conv / bias_conv giving per mel frame the LVC kernels [hidden -> 2 hidden, kernel] and biases of each
//   layer), and one residual layer per dilation: a dilated conv, then the LVC with the predicted kernels (a Conv1d
//   node with no weight of its own: the same work as a hidden -> 2 hidden conv), the sigmoid x tanh gate, the sum.
// - conv_post: Conv1d(hidden -> 1, 7), tanh.
// --seq sets the mel frames (default: one second of the feature extractor's 24 kHz audio at hop 256, 94 frames).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/blocks.hpp"
#include "blocks/conv.hpp"
#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace univnet_impl {
namespace {

using namespace blocks;
using graph::NodeType;

constexpr std::int64_t kDefaultMelFrames = 94;

// resblock_dilation_sizes: one list of positive dilations per block.
std::vector<std::vector<std::int64_t>> dilation_lists(const Config& c, std::size_t blocks) {
  const std::string key = "resblock_dilation_sizes";
  const std::vector<std::vector<std::int64_t>> fallback(blocks, {1, 3, 9, 27});
  const nlohmann::json* j = c.raw({key});
  if (!j) {
    c.record_default(key, fallback);
    return fallback;
  }
  std::vector<std::vector<std::int64_t>> out;
  const auto bad = [&] { return Error(ErrorKind::InvalidInput, c.origin() + ": key '" + key + "'",
                                      "expected a list of lists of positive integers"); };
  if (!j->is_array()) throw bad();
  for (const auto& row : *j) {
    if (!row.is_array()) throw bad();
    std::vector<std::int64_t> dil;
    for (const auto& v : row) {
      if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) throw bad();
      dil.push_back(v.get<std::int64_t>());
    }
    out.push_back(std::move(dil));
  }
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t in_channels = c.dim({"model_in_channels"}, 64);
  const std::int64_t hidden = c.dim({"model_hidden_channels"}, 32);
  const std::int64_t mel_bins = c.dim({"num_mel_bins"}, 100);
  const std::int64_t kp_hidden = c.dim({"kernel_predictor_hidden_channels"}, 64);
  const std::int64_t kp_blocks = c.integer({"kernel_predictor_num_blocks"}, 3);
  const std::int64_t kp_kernel = c.dim({"kernel_predictor_conv_size"}, 3);
  const double kp_dropout = c.number({"kernel_predictor_dropout"}, 0.0);
  const std::string act = "leaky_relu";

  const auto strides = size_list(c, "resblock_stride_sizes", {8, 8, 4});
  const auto kernels = size_list(c, "resblock_kernel_sizes", {3, 3, 3});
  const auto dilations = dilation_lists(c, strides.size());
  if (kernels.size() < strides.size() || dilations.size() < strides.size())
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'resblock_kernel_sizes'",
                fmt::format("{} kernel sizes and {} dilation lists for {} blocks", kernels.size(), dilations.size(),
                            strides.size()));

  const std::int64_t frames = in.requested_seq ? *in.requested_seq : kDefaultMelFrames;
  auto mel = b.input({frames, mel_bins}, "audio_features", "input_features");
  auto noise = b.input({frames, in_channels}, "audio_features", "noise_sequence");
  auto x = conv1d(b, noise, "Conv_Pre",
                  {.module = Scope("conv_pre"), .in_channels = in_channels, .out_channels = hidden, .kernel = 7,
                   .padding = 3});

  for (std::size_t i = 0; i < strides.size(); ++i) {
    b.set_block(static_cast<int>(i));
    const Scope blk = Scope("resblocks") / static_cast<std::int64_t>(i);
    const std::int64_t s = strides[i], k = kernels[i];
    const auto layers = static_cast<std::int64_t>(dilations[i].size());
    const std::int64_t length = x.shape.front() * s;
    // output_padding = s % 2 makes the transposed conv give exactly frames x s.
    x = conv_transpose1d(b, x, fmt::format("ConvT_Pre_{}", i), blk / "convt_pre", hidden, hidden, 2 * s, s,
                         s / 2 + s % 2);
    x = Value{x.node, {length, hidden}};

    const Scope kp = blk / "kernel_predictor";
    auto h = conv1d(b, mel, fmt::format("KP_Input_Conv_{}", i),
                    {.module = kp / "input_conv", .in_channels = mel_bins, .out_channels = kp_hidden, .kernel = 5,
                     .padding = 2, .activation = act});
    for (std::int64_t j = 0; j < kp_blocks; ++j) {
      const Scope r = kp / "resblocks" / j;
      auto t = conv1d(b, h, fmt::format("KP_{}_{}_Conv1", i, j),
                      {.module = r / "conv1", .in_channels = in_channels, .out_channels = in_channels,
                       .kernel = kp_kernel, .padding = (kp_kernel - 1) / 2, .activation = act});
      b.at(t).dropout = kp_dropout;
      t = conv1d(b, t, fmt::format("KP_{}_{}_Conv2", i, j),
                 {.module = r / "conv2", .in_channels = in_channels, .out_channels = in_channels, .kernel = kp_kernel,
                  .padding = (kp_kernel - 1) / 2, .activation = act});
      h = add(b, t, h, fmt::format("KP_{}_{}_Add", i, j));
    }
    const std::int64_t kernel_channels = hidden * 2 * hidden * k * layers;
    auto predicted = conv1d(b, h, fmt::format("KP_Kernel_Conv_{}", i),
                            {.module = kp / "kernel_conv", .in_channels = kp_hidden, .out_channels = kernel_channels,
                             .kernel = kp_kernel, .padding = (kp_kernel - 1) / 2});
    auto biases = conv1d(b, h, fmt::format("KP_Bias_Conv_{}", i),
                         {.module = kp / "bias_conv", .in_channels = kp_hidden, .out_channels = 2 * hidden * layers,
                          .kernel = kp_kernel, .padding = (kp_kernel - 1) / 2});

    for (std::int64_t j = 0; j < layers; ++j) {
      const std::int64_t d = dilations[i][static_cast<std::size_t>(j)];
      const Scope r = blk / "resblocks" / j;
      auto t = conv1d(b, x, fmt::format("LVC_{}_{}_Conv", i, j),
                      {.module = r / "conv", .in_channels = hidden, .out_channels = hidden, .kernel = k,
                       .padding = d * (k - 1) / 2, .dilation = d, .activation = act});
      // The location-variable convolution: every hop of the frames convolved with its mel frame's kernel.
      auto lvc = conv1d(b, t, fmt::format("LVC_{}_{}", i, j),
                        {.module = r, .in_channels = hidden, .out_channels = 2 * hidden, .kernel = k,
                         .padding = d * (k - 1) / 2, .dilation = d, .bias = false, .custom_weight = true});
      b.at(lvc).inputs.push_back(predicted.node);
      b.at(lvc).inputs.push_back(biases.node);
      auto gated = b.node(NodeType::Add, fmt::format("LVC_{}_{}_Gate", i, j), {length, hidden}, {lvc});
      x = add(b, gated, x, fmt::format("LVC_{}_{}_Add", i, j));
    }
  }
  b.set_block(-1);
  return conv1d(b, x, "Conv_Post",
                {.module = Scope("conv_post"), .in_channels = hidden, .out_channels = 1, .kernel = 7, .padding = 3,
                 .activation = "tanh"});
}

}  // namespace
}  // namespace univnet_impl

const Family& univnet_family() {
  static const Family family{"univnet", "models/univnet/modeling_univnet.py", classes("UnivNet"), univnet_impl::build};
  return family;
}

}  // namespace neurarch::families
