#include "blocks/upsample.hpp"

#include <fmt/format.h>

#include "blocks/conv.hpp"

namespace neurarch::blocks {
namespace {

bool feature_map(const Value& x) { return x.shape.size() == 3; }

}  // namespace

Value conv_transpose2d(GraphBuilder& b, const Value& x, const std::string& name, const ConvSpec& s) {
  const std::int64_t k = s.kernel;
  const std::int64_t h = feature_map(x) ? x.shape[1] : 0, w = feature_map(x) ? x.shape[2] : 0;
  auto out = b.node(graph::NodeType::Conv2d, name, {s.out * k * k, h, w}, {x}, s.module);
  b.at(out).spatial = graph::SpatialAttrs{1, 1, 1, 0, 1, false};
  b.parameter(out, s.module("weight"), {s.in, s.out, k, k}, graph::TensorRole::Conv);
  if (s.bias) b.parameter(out, s.module("bias"), {s.out}, graph::TensorRole::Bias);
  if (!feature_map(x))
    b.fail(out, fmt::format("expects a [channels, height, width] feature map, receives [{}]", fmt::join(x.shape, ", ")));
  else if (x.shape[0] != s.in)
    b.fail(out, fmt::format("expects {} channels, receives {}", s.in, x.shape[0]));
  else if (s.stride != k || s.padding != 0 || s.groups != 1)
    b.fail(out, fmt::format("only non-overlapping transposed convolutions are described (kernel {} = stride {}, no "
                            "padding, one group)",
                            k, s.stride));
  return Value{out.node, {s.out, h * k, w * k}};
}

Value conv_transpose1d(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                       std::int64_t out, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                       bool bias) {
  auto product = conv1d(b, x, name,
                        {.module = module, .in_channels = in, .out_channels = out * kernel, .bias = false,
                         .custom_weight = true});
  b.parameter(product, module("weight"), {in, out, kernel}, graph::TensorRole::Conv);
  if (bias) b.parameter(product, module("bias"), {out}, graph::TensorRole::Bias);
  const std::int64_t frames = x.shape.empty() ? 0 : (x.shape.front() - 1) * stride - 2 * padding + kernel;
  if (frames < 1) b.fail(product, fmt::format("{} input frames give no output frame", x.shape.empty() ? 0 : x.shape.front()));
  return Value{product.node, {frames, out}};
}

Value resize(GraphBuilder& b, const Value& x, const std::string& name, std::int64_t height, std::int64_t width) {
  const std::int64_t channels = x.shape.empty() ? 0 : x.shape.front();
  auto out = b.node(graph::NodeType::Pool, name, {channels, height, width}, {x});
  b.at(out).spatial = graph::SpatialAttrs{1, 1, 1, 0, 1, false};
  if (!feature_map(x))
    b.fail(out, fmt::format("expects a [channels, height, width] feature map, receives [{}]", fmt::join(x.shape, ", ")));
  else if (height <= 0 || width <= 0)
    b.fail(out, fmt::format("cannot resize a {}x{} map to {}x{}", x.shape[1], x.shape[2], height, width));
  return out;
}

}  // namespace neurarch::blocks
