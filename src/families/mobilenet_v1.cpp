// MobileNetV1 (models/mobilenet_v1/modeling_mobilenet_v1.py, transformers 4.47.1): a 3x3 stride-2 conv to
// max(int(32 x depth_multiplier), min_depth) channels, then 13 depthwise-separable pairs (a depthwise 3x3 with the
// pair's stride, then a pointwise 1x1; the width doubles at the first pair and at every stride-2 pair), each
// conv bias-free with BatchNorm and hidden_act (relu6), and a global average pool. TF SAME padding and
// PyTorch's symmetric padding give the same shapes. The classifier reads the pooled map after
// classifier_dropout_prob.
#include <fmt/format.h>

#include "families/conv_bn.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace mobilenet_v1_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const double multiplier = c.number({"depth_multiplier"}, 1.0);
  const std::int64_t min_depth = c.dim({"min_depth"}, 8);
  const std::int64_t num_channels = c.dim({"num_channels"}, 3);
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));
  const std::string act = c.text({"hidden_act"}, "relu6");
  auto scaled = [&](std::int64_t depth) {
    return std::max(static_cast<std::int64_t>(static_cast<double>(depth) * multiplier), min_depth);
  };
  static const std::int64_t kStrides[] = {1, 2, 1, 2, 1, 2, 1, 1, 1, 1, 1, 2, 1};

  const Scope root = in.head == Head::Base ? Scope() : Scope("mobilenet_v1");
  auto x = b.input({num_channels, image, image}, "pixels");
  std::int64_t depth = 32;
  std::int64_t out = scaled(depth);
  x = conv_bn(b, x, "Stem",
              {.module = root / "conv_stem", .in = num_channels, .out = out, .kernel = 3, .stride = 2, .activation = act});
  for (std::int64_t i = 0; i < 13; ++i) {
    b.set_block(static_cast<int>(i));
    const std::int64_t in_ch = out;
    if (kStrides[i] == 2 || i == 0) {
      depth *= 2;
      out = scaled(depth);
    }
    x = conv_bn(b, x, fmt::format("Depthwise_{}", i),
                {.module = root / "layer" / (2 * i), .in = in_ch, .out = in_ch, .kernel = 3, .stride = kStrides[i],
                 .groups = in_ch, .activation = act});
    x = conv_bn(b, x, fmt::format("Pointwise_{}", i),
                {.module = root / "layer" / (2 * i + 1), .in = in_ch, .out = out, .activation = act});
  }
  b.set_block(-1);
  x = pool(b, x, "Global_AvgPool", false);
  if (in.head == Head::Base) return x;
  b.at(x).dropout = c.number({"classifier_dropout_prob"}, 0.999);
  return classifier(b, Value{x.node, {out}}, "Classifier", Scope("classifier"), out, in.num_labels(), true);
}

}  // namespace
}  // namespace mobilenet_v1_impl

const Family& mobilenet_v1_family() {
  static const Family family{"mobilenet_v1", "models/mobilenet_v1/modeling_mobilenet_v1.py",
                             classes("MobileNetV1", {heads::ForImageClassification}), mobilenet_v1_impl::build};
  return family;
}

}  // namespace neurarch::families
