#include "families/mobilevit_common.hpp"

#include <algorithm>
#include <cmath>

namespace neurarch::families::mobilevit {

using namespace blocks;

std::int64_t make_divisible(double value, std::int64_t divisor, std::int64_t min_value) {
  if (min_value <= 0) min_value = divisor;
  const auto d = static_cast<double>(divisor);
  std::int64_t rounded = std::max<std::int64_t>(min_value, static_cast<std::int64_t>(value + d / 2) / divisor * divisor);
  if (static_cast<double>(rounded) < 0.9 * value) rounded += divisor;
  return rounded;
}

Value conv_layer(Ctx& c, const Value& x, const std::string& name, const Scope& m, const ConvLayer& s) {
  auto h = conv2d(c.b, x, "Conv_" + name,
                  {.module = m / "convolution", .in = x.shape.front(), .out = s.out, .kernel = s.kernel,
                   .stride = s.stride, .padding = (s.kernel - 1) / 2 * s.dilation, .groups = s.groups, .bias = s.bias});
  if (s.dilation > 1) {
    // A dilated kernel spans (k - 1) * d + 1 pixels; with that padding the map keeps its size at stride 1.
    c.b.at(h).out = {s.out, x.shape[1], x.shape[2]};
    h.shape = c.b.at(h).out;
  }
  if (!s.normalize) {
    if (s.activate) c.b.at(h).activation = c.act;
    return h;
  }
  return batch_norm(c.b, h, "BatchNorm_" + name, m / "normalization", s.activate ? c.act : "");
}

Value inverted_residual(Ctx& c, const Value& x, const Scope& m, std::int64_t out, std::int64_t stride,
                        std::int64_t dilation) {
  const std::int64_t in = x.shape.front();
  const std::int64_t expanded = make_divisible(std::round(static_cast<double>(in) * c.expand_ratio));
  c.b.set_block(static_cast<int>(c.block));
  const std::string id = std::to_string(c.block++);
  auto h = conv_layer(c, x, id + "_expand", m / "expand_1x1", {.out = expanded});
  h = conv_layer(c, h, id + "_depthwise", m / "conv_3x3",
                 {.out = expanded, .kernel = 3, .stride = stride, .groups = expanded, .dilation = dilation});
  h = conv_layer(c, h, id + "_reduce", m / "reduce_1x1", {.out = out, .activate = false});
  if (stride == 1 && in == out) h = add(c.b, h, x, "Add_" + id);
  c.b.set_block(-1);
  return h;
}

}  // namespace neurarch::families::mobilevit
