#include "families/efficientnet_common.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/squeeze_excite.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"

namespace neurarch::families::efficientnet {
namespace efficientnet_common_impl {
namespace {

using namespace blocks;

struct Scaling {
  explicit Scaling(const Config& c)
      : width(c.number({"width_coefficient"}, 2.0)), depth(c.number({"depth_coefficient"}, 3.1)),
        divisor(c.dim({"depth_divisor"}, 8)) {}

  double width, depth;
  std::int64_t divisor;
  std::int64_t filters(std::int64_t channels) const {
    const double scaled = static_cast<double>(channels) * width;
    std::int64_t rounded = std::max(
        divisor, static_cast<std::int64_t>(scaled + static_cast<double>(divisor) / 2) / divisor * divisor);
    if (static_cast<double>(rounded) < 0.9 * scaled) rounded += divisor;
    return rounded;
  }
  std::int64_t repeats(std::int64_t n) const {
    return static_cast<std::int64_t>(std::ceil(depth * static_cast<double>(n)));
  }
};

// Block indices whose stride-2 depthwise conv pads symmetrically.
std::set<std::int64_t> symmetric_padding_blocks(const Config& c) {
  std::set<std::int64_t> out;
  const auto* v = c.raw({"depthwise_padding"});
  if (!v) return out;
  if (!v->is_array())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'depthwise_padding'", c.origin()),
                fmt::format("expected a list of block indices, found {}", v->dump()));
  for (const auto& e : *v) {
    if (!e.is_number_integer())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'depthwise_padding'", c.origin()),
                  fmt::format("expected block indices, found {}", e.dump()));
    out.insert(e.get<std::int64_t>());
  }
  return out;
}

// A map zero-padded by `total` rows and columns (a view: the pad keeps nothing for backward).
Value padded(const Value& x, std::int64_t total) {
  if (x.shape.size() != 3) return x;
  return Value{x.node, {x.shape[0], x.shape[1] + total, x.shape[2] + total}};
}

}  // namespace
}  // namespace efficientnet_common_impl
using namespace efficientnet_common_impl;

std::int64_t round_filters(const Config& c, std::int64_t channels) { return efficientnet_common_impl::Scaling(c).filters(channels); }

bool max_pooling(const Config& c) {
  const std::string pooling = c.text({"pooling_type"}, "mean");
  if (pooling != "mean" && pooling != "max")
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'pooling_type'", c.origin()),
                fmt::format("'{}' is neither 'mean' nor 'max'", pooling));
  return pooling == "max";
}

Value blocks(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, std::int64_t& width) {
  const efficientnet_common_impl::Scaling scale(c);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 600));
  const auto kernels = size_list(c, "kernel_sizes", {3, 3, 5, 3, 5, 5, 3});
  const auto ins = size_list(c, "in_channels", {32, 16, 24, 40, 80, 112, 192});
  const auto outs = size_list(c, "out_channels", {16, 24, 40, 80, 112, 192, 320});
  const auto strides = size_list(c, "strides", {1, 2, 2, 2, 1, 2, 1});
  const auto repeats = size_list(c, "num_block_repeats", {1, 2, 2, 3, 3, 4, 1});
  const auto ratios = size_list(c, "expand_ratios", {1, 6, 6, 6, 6, 6, 6});
  for (const auto& [key, list] : {std::pair{"kernel_sizes", &kernels}, {"out_channels", &outs}, {"strides", &strides},
                                  {"num_block_repeats", &repeats}, {"expand_ratios", &ratios}})
    require_length(c, key, *list, ins.size());
  const std::set<std::int64_t> symmetric = efficientnet_common_impl::symmetric_padding_blocks(c);
  const double squeeze_ratio = c.number({"squeeze_expansion_ratio"}, 0.25);
  const std::string act = c.text({"hidden_act"}, "swish");
  const double drop_connect = c.number({"drop_connect_rate"}, 0.2);

  const Scope emb = root / "embeddings";
  auto x = b.input({channels, image, image}, "pixels");
  const std::int64_t stem = scale.filters(32);
  x = conv2d(b, efficientnet_common_impl::padded(x, 1), "Stem_Conv",
             {.module = emb / "convolution", .in = channels, .out = stem, .kernel = 3, .stride = 2, .bias = false});
  x = batch_norm(b, x, "Stem_BatchNorm", emb / "batchnorm", act);

  std::int64_t total = 0;
  for (auto r : repeats) total += scale.repeats(r);
  std::int64_t block = 0;
  width = stem;
  for (std::size_t s = 0; s < ins.size(); ++s) {
    const std::int64_t out = scale.filters(outs[s]);
    const std::int64_t k = kernels[s];
    for (std::int64_t j = 0; j < scale.repeats(repeats[s]); ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = root / "encoder" / "blocks" / block;
      const std::int64_t in_dim = j == 0 ? scale.filters(ins[s]) : out;
      const std::int64_t stride = j == 0 ? strides[s] : 1;
      auto name = [&](const std::string& what) { return fmt::format("{}_{}", what, block); };
      if (in_dim != width) b.fail(x, fmt::format("block {} expects {} channels, receives {}", block, in_dim, width));
      Value h = x;
      std::int64_t dim = in_dim;
      if (ratios[s] != 1) {
        dim = in_dim * ratios[s];
        h = conv2d(b, h, name("Expand_Conv"),
                   {.module = l / "expansion" / "expand_conv", .in = in_dim, .out = dim, .bias = false});
        h = batch_norm(b, h, name("Expand_BatchNorm"), l / "expansion" / "expand_bn", act);
      }
      const Scope dw = l / "depthwise_conv";
      if (stride == 2) {
        const std::int64_t pad = symmetric.count(block) ? 2 * (k / 2) : 2 * (k / 2) - 1;
        h = conv2d(b, efficientnet_common_impl::padded(h, pad), name("Depthwise_Conv"),
                   {.module = dw / "depthwise_conv", .in = dim, .out = dim, .kernel = k, .stride = 2, .groups = dim,
                    .bias = false});
      } else {
        h = conv2d(b, h, name("Depthwise_Conv"),
                   {.module = dw / "depthwise_conv", .in = dim, .out = dim, .kernel = k, .stride = stride,
                    .padding = k / 2, .groups = dim, .bias = false});
      }
      h = batch_norm(b, h, name("Depthwise_BatchNorm"), dw / "depthwise_norm", act);
      const Scope se = l / "squeeze_excite";
      h = squeeze_excite(b, h, name("SqueezeExcite"),
                         {.reduce = se / "reduce", .expand = se / "expand", .channels = dim,
                          .reduced = std::max<std::int64_t>(
                              1, static_cast<std::int64_t>(static_cast<double>(in_dim) * squeeze_ratio)),
                          .activation = act});
      const Scope proj = l / "projection";
      h = conv2d(b, h, name("Project_Conv"), {.module = proj / "project_conv", .in = dim, .out = out, .bias = false});
      h = batch_norm(b, h, name("Project_BatchNorm"), proj / "project_bn");
      if (stride == 1 && j > 0) {
        b.at(h).dropout = drop_connect * static_cast<double>(block) / static_cast<double>(total);
        h = add(b, h, x, name("Add"));
      }
      x = h;
      width = out;
    }
  }
  b.set_block(-1);
  return x;
}

}  // namespace neurarch::families::efficientnet
