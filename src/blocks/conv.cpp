#include "blocks/conv.hpp"

#include <fmt/format.h>

namespace neurarch::blocks {

std::int64_t conv1d_frames(std::int64_t frames, std::int64_t kernel, std::int64_t stride, std::int64_t padding,
                           std::int64_t dilation) {
  const std::int64_t span = frames + 2 * padding - dilation * (kernel - 1) - 1;
  if (span < 0 || stride <= 0) return 0;
  return span / stride + 1;
}

Value conv1d(GraphBuilder& b, const Value& x, const std::string& name, const Conv1dSpec& s, TimeLayout layout) {
  std::int64_t frames = 0, channels = 0;
  switch (layout) {
    case TimeLayout::Mono:
      frames = x.shape.empty() ? 0 : x.shape.back();
      channels = 1;
      break;
    case TimeLayout::ChannelsFirst:
      channels = x.shape.size() == 2 ? x.shape[0] : 0;
      frames = x.shape.size() == 2 ? x.shape[1] : 0;
      break;
    case TimeLayout::TimeMajor:
      frames = x.shape.size() == 2 ? x.shape[0] : 0;
      channels = x.shape.size() == 2 ? x.shape[1] : 0;
      break;
  }
  const std::int64_t out_frames = conv1d_frames(frames, s.kernel, s.stride, s.padding, s.dilation);
  // A GLU over the channels (Speech2Text's subsampler) gates one half by the other: half the width out.
  const bool glu = s.activation == "glu";
  auto out = b.node(graph::NodeType::Conv1d, name, {out_frames, glu ? s.out_channels / 2 : s.out_channels}, {x},
                    s.module);
  b.at(out).conv = graph::ConvAttrs{s.in_channels, s.out_channels, s.kernel, s.stride, s.padding, s.groups, frames,
                                    out_frames};
  b.at(out).activation = s.activation;
  const std::int64_t groups = s.groups > 0 ? s.groups : 1;
  if (!s.custom_weight) b.parameter(out, s.module("weight"), {s.out_channels, s.in_channels / groups, s.kernel}, graph::TensorRole::Conv);
  if (s.bias) b.parameter(out, s.module("bias"), {s.out_channels}, graph::TensorRole::Bias);

  if (channels != s.in_channels)
    b.fail(out, fmt::format("expects {} input channels, receives {}", s.in_channels, channels));
  if (s.in_channels % groups != 0 || s.out_channels % groups != 0)
    b.fail(out, fmt::format("{} groups do not divide {} -> {} channels", groups, s.in_channels, s.out_channels));
  if (glu && s.out_channels % 2 != 0)
    b.fail(out, fmt::format("a GLU cannot halve {} output channels", s.out_channels));
  if (out_frames < 1)
    b.fail(out, fmt::format("{} input frames are fewer than the kernel of {} (padding {})", frames, s.kernel,
                            s.padding));
  return out;
}

Value batch_norm1d(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                   const std::string& activation) {
  auto out = b.node(graph::NodeType::BatchNorm, name, x.shape, {x}, module);
  b.at(out).activation = activation;
  const std::int64_t channels = x.shape.empty() ? 0 : x.shape.back();
  b.parameter(out, module("weight"), {channels}, graph::TensorRole::Norm);
  b.parameter(out, module("bias"), {channels}, graph::TensorRole::Bias);
  b.buffer(out, module("running_mean"), {channels}, b.param_dtype());
  b.buffer(out, module("running_var"), {channels}, b.param_dtype());
  b.buffer(out, module("num_batches_tracked"), {}, DType::I64);
  if (x.shape.size() != 2) b.fail(out, "expects a [frames, channels] sequence");
  return out;
}

Value glu(GraphBuilder& b, const Value& x, const std::string& name) {
  Shape shape = x.shape;
  const std::int64_t channels = shape.empty() ? 0 : shape.back();
  if (!shape.empty()) shape.back() = channels / 2;
  // A parameter-free Linear node that only applies its activation, like the feature encoder's.
  auto out = b.node(graph::NodeType::Linear, name, shape, {x});
  b.at(out).activation = "glu";
  if (channels % 2 != 0) b.fail(out, fmt::format("GLU halves the channels; {} is odd", channels));
  return out;
}

}  // namespace neurarch::blocks
