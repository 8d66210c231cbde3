#include "families/hifigan.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"

namespace neurarch::families::hifigan {

using namespace blocks;
using graph::NodeType;

namespace hifigan_impl {
namespace {

std::vector<std::vector<std::int64_t>> dilation_lists(const Config& c, std::size_t count) {
  std::vector<std::vector<std::int64_t>> out(count, {1, 3, 5});
  const auto* listed = c.raw({"resblock_dilation_sizes"});
  if (!listed) return out;
  auto bad = [&]() {
    return Error(ErrorKind::InvalidInput, fmt::format("{}: key 'resblock_dilation_sizes'", c.origin()),
                 fmt::format("expected {} lists of positive integers", count));
  };
  if (!listed->is_array() || listed->size() != count) throw bad();
  for (std::size_t i = 0; i < count; ++i) {
    const auto& l = (*listed)[i];
    if (!l.is_array() || l.empty()) throw bad();
    out[i].clear();
    for (const auto& v : l) {
      if (!v.is_number_integer() || v.get<std::int64_t>() <= 0) throw bad();
      out[i].push_back(v.get<std::int64_t>());
    }
  }
  return out;
}

Value residual_block(GraphBuilder& b, Value x, const std::string& label, const Scope& block, std::int64_t channels,
                     std::int64_t kernel, const std::vector<std::int64_t>& dilations) {
  for (std::size_t k = 0; k < dilations.size(); ++k) {
    const auto index = static_cast<std::int64_t>(k);
    const std::int64_t d = dilations[k];
    // LeakyReLU before each conv: applied by a parameter-free node so that its input is what it keeps.
    auto h = b.node(NodeType::Linear, fmt::format("{}_LeakyReLU_{}_1", label, k), x.shape, {x});
    b.at(h).activation = "leaky_relu";
    h = conv1d(b, h, fmt::format("{}_Conv_{}_1", label, k),
               {.module = block / "convs1" / index, .in_channels = channels, .out_channels = channels,
                .kernel = kernel, .padding = (kernel * d - d) / 2, .dilation = d, .activation = "leaky_relu"});
    h = conv1d(b, h, fmt::format("{}_Conv_{}_2", label, k),
               {.module = block / "convs2" / index, .in_channels = channels, .out_channels = channels,
                .kernel = kernel, .padding = (kernel - 1) / 2});
    x = add(b, h, x, fmt::format("{}_Add_{}", label, k));
  }
  return x;
}

}  // namespace
}  // namespace hifigan_impl
using namespace hifigan_impl;

Value vocoder(GraphBuilder& b, const Value& spectrogram, const Config& c) {
  const std::int64_t mel = c.dim({"model_in_dim"}, 80);
  const std::int64_t initial = c.dim({"upsample_initial_channel"}, 512);
  const auto rates = size_list(c, "upsample_rates", {8, 8, 2, 2});
  const auto up_kernels = size_list(c, "upsample_kernel_sizes", {16, 16, 4, 4});
  require_length(c, "upsample_kernel_sizes", up_kernels, rates.size());
  const auto kernels = size_list(c, "resblock_kernel_sizes", {3, 7, 11});
  const auto dilations = hifigan_impl::dilation_lists(c, kernels.size());

  // (spectrogram - mean) / scale when normalize_before: both buffers exist either way.
  auto x = b.node(NodeType::Add, "Vocoder_Normalize", spectrogram.shape, {spectrogram});
  b.buffer(x, "mean", {mel}, b.param_dtype());
  b.buffer(x, "scale", {mel}, b.param_dtype());
  x = conv1d(b, x, "Vocoder_Conv_Pre",
             {.module = Scope("conv_pre"), .in_channels = mel, .out_channels = initial, .kernel = 7, .padding = 3});
  std::int64_t channels = initial;
  for (std::size_t i = 0; i < rates.size(); ++i) {
    const auto index = static_cast<std::int64_t>(i);
    auto h = b.node(NodeType::Linear, fmt::format("Vocoder_LeakyReLU_{}", i), x.shape, {x});
    b.at(h).activation = "leaky_relu";
    x = conv_transpose1d(b, h, fmt::format("Vocoder_Upsample_{}", i), Scope("upsampler") / index, channels,
                         channels / 2, up_kernels[i], rates[i], (up_kernels[i] - rates[i]) / 2);
    channels /= 2;
    // The blocks all read the upsampled frames; their outputs are averaged.
    Value sum;
    for (std::size_t j = 0; j < kernels.size(); ++j) {
      const auto block = static_cast<std::int64_t>(i * kernels.size() + j);
      auto r = hifigan_impl::residual_block(b, x, fmt::format("Vocoder_Block_{}", block), Scope("resblocks") / block, channels,
                              kernels[j], dilations[j]);
      sum = j == 0 ? r : add(b, r, sum, fmt::format("Vocoder_Block_Sum_{}", block));
    }
    x = sum;
  }
  auto h = b.node(NodeType::Linear, "Vocoder_LeakyReLU_Post", x.shape, {x});
  b.at(h).activation = "leaky_relu";
  x = conv1d(b, h, "Vocoder_Conv_Post",
             {.module = Scope("conv_post"), .in_channels = channels, .out_channels = 1, .kernel = 7, .padding = 3,
              .activation = "tanh"});
  return x;
}

}  // namespace neurarch::families::hifigan
