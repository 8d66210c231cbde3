#include <fmt/format.h>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {
namespace {

// PyTorch's output size for a window sliding over `size` (floor division, as nn.Conv2d / MaxPool2d).
std::int64_t slid(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t padding) {
  const std::int64_t span = size + 2 * padding - kernel;
  return span < 0 ? 0 : span / stride + 1;
}

bool feature_map(const Value& x) { return x.shape.size() == 3; }

}  // namespace

Value conv2d(GraphBuilder& b, const Value& x, const std::string& name, const ConvSpec& s) {
  const std::int64_t h = feature_map(x) ? x.shape[1] : 0, w = feature_map(x) ? x.shape[2] : 0;
  auto out = b.node(graph::NodeType::Conv2d, name,
                    {s.out, slid(h, s.kernel, s.stride, s.padding), slid(w, s.kernel, s.stride, s.padding)}, {x},
                    s.module);
  b.at(out).spatial = graph::SpatialAttrs{s.kernel, s.kernel, s.stride, s.padding, s.groups, false};
  const std::int64_t groups = s.groups > 0 ? s.groups : 1;
  b.parameter(out, s.module("weight"), {s.out, s.in / groups, s.kernel, s.kernel}, graph::TensorRole::Conv);
  if (s.bias) b.parameter(out, s.module("bias"), {s.out}, graph::TensorRole::Bias);
  if (!feature_map(x))
    b.fail(out, fmt::format("expects a [channels, height, width] feature map, receives [{}]", fmt::join(x.shape, ", ")));
  else if (x.shape[0] != s.in)
    b.fail(out, fmt::format("expects {} channels, receives {}", s.in, x.shape[0]));
  else if (s.in % groups != 0 || s.out % groups != 0)
    b.fail(out, fmt::format("{} groups do not divide {} -> {} channels", groups, s.in, s.out));
  else if (h + 2 * s.padding < s.kernel || w + 2 * s.padding < s.kernel)
    b.fail(out, fmt::format("a {}x{} map is smaller than the {}x{} kernel", h, w, s.kernel, s.kernel));
  return out;
}

Value batch_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                 const std::string& activation) {
  auto out = b.node(graph::NodeType::BatchNorm, name, x.shape, {x}, module);
  b.at(out).activation = activation;
  const std::int64_t channels = x.shape.empty() ? 0 : x.shape.front();
  b.parameter(out, module("weight"), {channels}, graph::TensorRole::Norm);
  b.parameter(out, module("bias"), {channels}, graph::TensorRole::Bias);
  b.buffer(out, module("running_mean"), {channels}, b.param_dtype());
  b.buffer(out, module("running_var"), {channels}, b.param_dtype());
  b.buffer(out, module("num_batches_tracked"), {}, DType::I64);
  return out;
}

Value pool(GraphBuilder& b, const Value& x, const std::string& name, bool max, std::int64_t kernel,
           std::int64_t stride, std::int64_t padding) {
  graph::Shape shape = x.shape;
  if (feature_map(x)) {
    shape[1] = kernel == 0 ? 1 : slid(x.shape[1], kernel, stride, padding);
    shape[2] = kernel == 0 ? 1 : slid(x.shape[2], kernel, stride, padding);
  }
  auto out = b.node(graph::NodeType::Pool, name, shape, {x});
  const std::int64_t k_h = kernel == 0 && feature_map(x) ? x.shape[1] : kernel;
  const std::int64_t k_w = kernel == 0 && feature_map(x) ? x.shape[2] : kernel;
  b.at(out).spatial = graph::SpatialAttrs{k_h, k_w, kernel == 0 ? 1 : stride, padding, 1, max};
  if (!feature_map(x))
    b.fail(out, fmt::format("expects a [channels, height, width] feature map, receives [{}]", fmt::join(x.shape, ", ")));
  else if (kernel > 0 && (x.shape[1] + 2 * padding < kernel || x.shape[2] + 2 * padding < kernel))
    b.fail(out, fmt::format("a {}x{} map is smaller than the {}x{} window", x.shape[1], x.shape[2], kernel, kernel));
  return out;
}

}  // namespace neurarch::blocks
