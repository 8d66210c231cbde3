// MobileNetV2 (models/mobilenet_v2/modeling_mobilenet_v2.py, transformers 4.47.1): channels scaled by
// depth_multiplier and rounded by make_divisible (depth_divisible_by, min_depth). A stem (3x3 stride-2 conv, an
// optional 1x1 expansion when first_layer_is_expansion is off, a depthwise 3x3, a linear 1x1 reduction), 16
// inverted residuals (1x1 expansion by expand_ratio -> depthwise 3x3 carrying the stride -> linear 1x1
// reduction, plus the input when the stride is 1 and the width is kept; once output_stride is reached strides
// become dilations, which keep the map's size), a 1x1 conv to 1280 (scaled unless finegrained_output with a
// multiplier below 1) and a global average pool. Every conv is bias-free with BatchNorm and hidden_act (relu6)
// except the reductions. TF SAME padding and PyTorch's symmetric padding give the same shapes here. The
// classifier reads the pooled map after classifier_dropout_prob.
#include <cmath>

#include <fmt/format.h>

#include "families/conv_bn.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace mobilenet_v2_impl {
namespace {

using namespace blocks;

struct Rounding {
  double multiplier = 1.0;
  std::int64_t divisor = 8, min_depth = 8;
  std::int64_t divisible(double value) const {
    std::int64_t rounded =
        std::max(min_depth, static_cast<std::int64_t>(value + static_cast<double>(divisor) / 2) / divisor * divisor);
    if (static_cast<double>(rounded) < 0.9 * value) rounded += divisor;
    return rounded;
  }
  // make_divisible(int(round(x))) as the reference applies it (Python rounds halves to even, as nearbyint).
  std::int64_t rounded(double value) const { return divisible(std::nearbyint(value)); }
  std::int64_t channels(std::int64_t base) const { return rounded(static_cast<double>(base) * multiplier); }
};

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Rounding r{c.number({"depth_multiplier"}, 1.0), c.dim({"depth_divisible_by"}, 8), c.dim({"min_depth"}, 8)};
  const std::int64_t num_channels = c.dim({"num_channels"}, 3);
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));
  const double expand_ratio = c.number({"expand_ratio"}, 6.0);
  const std::int64_t output_stride = c.dim({"output_stride"}, 32);
  const std::string act = c.text({"hidden_act"}, "relu6");

  static const std::int64_t kChannels[] = {16, 24, 24, 32, 32, 32, 64, 64, 64, 64, 96, 96, 96, 160, 160, 160, 320};
  static const std::int64_t kStrides[] = {2, 1, 2, 1, 1, 2, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1};
  std::vector<std::int64_t> channels;
  for (auto ch : kChannels) channels.push_back(r.channels(ch));

  const Scope root = in.head == Head::Base ? Scope() : Scope("mobilenet_v2");
  const Scope stem = root / "conv_stem";
  auto x = b.input({num_channels, image, image}, "pixels");
  const std::int64_t first = r.channels(32);
  x = conv_bn(b, x, "Stem_First",
              {.module = stem / "first_conv", .in = num_channels, .out = first, .kernel = 3, .stride = 2,
               .activation = act});
  if (!c.flag({"first_layer_is_expansion"}, true))
    x = conv_bn(b, x, "Stem_Expand", {.module = stem / "expand_1x1", .in = first, .out = first, .activation = act});
  x = conv_bn(b, x, "Stem_Depthwise",
              {.module = stem / "conv_3x3", .in = first, .out = first, .kernel = 3, .groups = first, .activation = act});
  x = conv_bn(b, x, "Stem_Reduce", {.module = stem / "reduce_1x1", .in = first, .out = channels[0]});

  std::int64_t current_stride = 2;
  for (std::int64_t i = 0; i < 16; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "layer" / i;
    std::int64_t stride = kStrides[i];
    if (current_stride == output_stride)
      stride = 1;  // dilated instead: the same output size
    else
      current_stride *= stride;
    const std::int64_t in_ch = channels[static_cast<std::size_t>(i)];
    const std::int64_t out_ch = channels[static_cast<std::size_t>(i) + 1];
    const std::int64_t expanded = r.rounded(static_cast<double>(in_ch) * expand_ratio);
    auto name = [&](const char* what) { return fmt::format("{}_{}", what, i); };
    auto h = conv_bn(b, x, name("Expand"), {.module = l / "expand_1x1", .in = in_ch, .out = expanded, .activation = act});
    h = conv_bn(b, h, name("Depthwise"),
                {.module = l / "conv_3x3", .in = expanded, .out = expanded, .kernel = 3, .stride = stride,
                 .groups = expanded, .activation = act});
    h = conv_bn(b, h, name("Reduce"), {.module = l / "reduce_1x1", .in = expanded, .out = out_ch});
    x = stride == 1 && in_ch == out_ch ? add(b, h, x, name("Add")) : h;
  }
  b.set_block(-1);
  const bool fine = c.flag({"finegrained_output"}, true) && r.multiplier < 1.0;
  const std::int64_t last = fine ? 1280 : r.channels(1280);
  x = conv_bn(b, x, "Head", {.module = root / "conv_1x1", .in = channels.back(), .out = last, .activation = act});
  x = pool(b, x, "Global_AvgPool", false);
  if (in.head == Head::Base) return x;
  b.at(x).dropout = c.number({"classifier_dropout_prob"}, 0.8);
  return classifier(b, Value{x.node, {last}}, "Classifier", Scope("classifier"), last, in.num_labels(), true);
}

}  // namespace
}  // namespace mobilenet_v2_impl

const Family& mobilenet_v2_family() {
  static const Family family{"mobilenet_v2", "models/mobilenet_v2/modeling_mobilenet_v2.py",
                             classes("MobileNetV2", {heads::ForImageClassification}), mobilenet_v2_impl::build};
  return family;
}

}  // namespace neurarch::families
