#include "families/bit_common.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "blocks/group_norm.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"

namespace neurarch::families::bit {

using namespace blocks;

namespace bit_common_impl {
namespace {

// The reference's make_div: round to a multiple of 8, never more than 10% below the request.
std::int64_t make_div(double value, std::int64_t divisor = 8) {
  std::int64_t rounded =
      std::max(divisor, static_cast<std::int64_t>(value + static_cast<double>(divisor) / 2) / divisor * divisor);
  if (static_cast<double>(rounded) < 0.9 * value) rounded += divisor;
  return rounded;
}

// Padding giving the reference's output size for a k x k convolution with `stride` and `dilation` (dilation
// keeps the kernel's weight shape; it widens the window, which the padding here absorbs).
std::int64_t conv_padding(const Settings& s, std::int64_t kernel, std::int64_t stride, std::int64_t dilation) {
  const std::int64_t reach = dilation * (kernel - 1);
  std::int64_t padding = s.padding == "valid" ? 0 : ((stride - 1) + reach) / 2;
  if (s.padding == "same") padding = reach / 2;  // TF SAME: ceil(size / stride) for these odd kernels
  return padding - (reach - (kernel - 1)) / 2;
}

struct ConvNames {
  const Settings& s;
  Value conv(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
             std::int64_t out, std::int64_t kernel, std::int64_t stride = 1, std::int64_t dilation = 1) const {
    return conv2d(b, x, name,
                  {.module = module, .in = in, .out = out, .kernel = kernel, .stride = stride,
                   .padding = conv_padding(s, kernel, stride, dilation), .bias = false});
  }
};

}  // namespace
}  // namespace bit_common_impl
using namespace bit_common_impl;

Settings read_settings(const Config& c) {
  Settings s;
  s.channels = c.dim({"num_channels"}, 3);
  s.embedding = c.dim({"embedding_size"}, 64);
  s.hidden = size_list(c, "hidden_sizes", {256, 512, 1024, 2048});
  s.depths = size_list(c, "depths", {3, 4, 6, 3});
  const std::string layer_type = c.text({"layer_type"}, "preactivation");
  if (layer_type != "preactivation" && layer_type != "bottleneck")
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'layer_type'", c.origin()),
                fmt::format("'{}' is neither 'preactivation' nor 'bottleneck'", layer_type));
  s.preactivation = layer_type == "preactivation";
  s.activation = c.text({"hidden_act"}, "relu");
  s.groups = c.dim({"num_groups"}, 32);
  s.padding = c.text({"global_padding"}, "");
  std::transform(s.padding.begin(), s.padding.end(), s.padding.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  s.dynamic_pool_padding = c.flag({"embedding_dynamic_padding"}, false);
  s.output_stride = c.dim({"output_stride"}, 32);
  s.width_factor = c.dim({"width_factor"}, 1);
  return s;
}

Trunk trunk(GraphBuilder& b, const Value& pixels, const Settings& s, const Scope& root, std::int64_t first_block) {
  const bit_common_impl::ConvNames w{s};
  const Scope embedder = root / "embedder";
  Trunk t;
  auto x = w.conv(b, pixels, "Stem_Conv", embedder / "convolution", s.channels, s.embedding, 7, 2);
  if (!s.preactivation) x = group_norm(b, x, "Stem_GroupNorm", embedder / "norm", s.groups, s.activation);
  // Unless padding is TF SAME a constant pad of 1 precedes the pool; dynamic padding pads to ceil(size / 2).
  const std::int64_t pool_padding = (s.padding == "same" ? 0 : 1) + (s.dynamic_pool_padding ? 1 : 0);
  x = pool(b, x, "Stem_MaxPool", true, 3, 2, pool_padding);
  t.stages.push_back(x);
  t.channels.push_back(s.embedding);

  std::int64_t width = s.embedding;
  std::int64_t current_stride = 4, dilation = 1;
  std::int64_t block = first_block;
  const std::size_t stages = std::min(s.depths.size(), s.hidden.size());
  for (std::size_t i = 0; i < stages; ++i) {
    const std::int64_t out = bit_common_impl::make_div(static_cast<double>(s.hidden[i] * s.width_factor));
    std::int64_t stride = i == 0 ? 1 : 2;
    if (current_stride >= s.output_stride) {
      dilation *= stride;
      stride = 1;
    }
    current_stride *= stride;
    const std::int64_t mid = bit_common_impl::make_div(static_cast<double>(out) * 0.25);
    for (std::int64_t j = 0; j < s.depths[i]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = root / "encoder" / "stages" / static_cast<std::int64_t>(i) / "layers" / j;
      const std::int64_t layer_stride = j == 0 ? stride : 1;
      auto name = [&](const char* what) { return fmt::format("{}_{}", what, block); };
      Value shortcut = x, h;
      if (s.preactivation) {
        auto preact = group_norm(b, x, name("GroupNorm1"), l / "norm1", s.groups, s.activation);
        if (j == 0)
          shortcut = w.conv(b, preact, name("Downsample_Conv"), l / "downsample" / "conv", width, out, 1, layer_stride);
        h = w.conv(b, preact, name("Conv1"), l / "conv1", width, mid, 1);
        h = group_norm(b, h, name("GroupNorm2"), l / "norm2", s.groups, s.activation);
        h = w.conv(b, h, name("Conv2"), l / "conv2", mid, mid, 3, layer_stride, dilation);
        h = group_norm(b, h, name("GroupNorm3"), l / "norm3", s.groups, s.activation);
        h = w.conv(b, h, name("Conv3"), l / "conv3", mid, out, 1);
        x = add(b, h, shortcut, name("Add"));
      } else {
        if (j == 0) {
          shortcut = w.conv(b, x, name("Downsample_Conv"), l / "downsample" / "conv", width, out, 1, layer_stride);
          shortcut = group_norm(b, shortcut, name("Downsample_GroupNorm"), l / "downsample" / "norm", s.groups);
        }
        h = w.conv(b, x, name("Conv1"), l / "conv1", width, mid, 1);
        h = group_norm(b, h, name("GroupNorm1"), l / "norm1", s.groups, s.activation);
        h = w.conv(b, h, name("Conv2"), l / "conv2", mid, mid, 3, layer_stride, dilation);
        h = group_norm(b, h, name("GroupNorm2"), l / "norm2", s.groups, s.activation);
        h = w.conv(b, h, name("Conv3"), l / "conv3", mid, out, 1);
        h = group_norm(b, h, name("GroupNorm3"), l / "norm3", s.groups);
        x = add(b, h, shortcut, name("Add"));
        b.at(x).activation = s.activation;
      }
      width = out;
    }
    t.stages.push_back(x);
    t.channels.push_back(out);
  }
  b.set_block(-1);
  t.last = x;
  return t;
}

}  // namespace neurarch::families::bit
