// EfficientNet (models/efficientnet/modeling_efficientnet.py, transformers 4.47.1): channels scaled by
// round_filters (width_coefficient, rounded to depth_divisor, never more than 10% down) and each base stage
// repeated ceil(depth_coefficient x num_block_repeats) times; the stem and MBConv blocks are in
// efficientnet_common.hpp. A 1x1 top conv to round_filters(1280) channels, top_bn over hidden_dim and the
// activation end the encoder; the pooler averages (or maxes, pooling_type) each channel; the classifier reads it
// after dropout_rate.
#include <string>

#include <fmt/format.h>

#include "families/efficientnet_common.hpp"

namespace neurarch::families {
namespace efficientnet_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t hidden_dim = c.dim({"hidden_dim"}, 2560);
  const bool max_pool = efficientnet::max_pooling(c);
  const std::string act = c.text({"hidden_act"}, "swish");
  const Scope root = in.head == Head::Base ? Scope() : Scope("efficientnet");
  std::int64_t width = 0;
  auto x = efficientnet::blocks(in, b, c, root, width);
  const std::int64_t top = efficientnet::round_filters(c, 1280);
  x = conv2d(b, x, "Top_Conv", {.module = root / "encoder" / "top_conv", .in = width, .out = top, .bias = false});
  // top_bn is sized by hidden_dim, the conv by round_filters(1280): a config where they differ cannot run.
  x = batch_norm(b, Value{x.node, {hidden_dim, x.shape[1], x.shape[2]}}, "Top_BatchNorm",
                 root / "encoder" / "top_bn", act);
  if (top != hidden_dim)
    b.fail(x, fmt::format("top_bn normalises hidden_dim {} channels, top_conv gives round_filters(1280) = {}",
                          hidden_dim, top));
  x = pool(b, x, "Pooler", max_pool);
  if (in.head == Head::Base) return x;
  b.at(x).dropout = c.number({"dropout_rate"}, 0.5);
  return classifier(b, Value{x.node, {hidden_dim}}, "Classifier", Scope("classifier"), hidden_dim, in.num_labels(),
                    true);
}

}  // namespace
}  // namespace efficientnet_impl

const Family& efficientnet_family() {
  static const Family family{"efficientnet", "models/efficientnet/modeling_efficientnet.py",
                             classes("EfficientNet", {heads::ForImageClassification}), efficientnet_impl::build};
  return family;
}

}  // namespace neurarch::families
