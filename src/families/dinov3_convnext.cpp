// DINOv3's ConvNeXt (models/dinov3_convnext/modeling_dinov3_convnext.py, transformers 4.57): ConvNeXt under its
// own names. Stage 0 opens with a fixed 4x4 stride-4 conv stem + channels-first LayerNorm (downsample_layers
// 0 and 1), later stages with a channels-first LayerNorm + 2x2 stride-2 conv; every layer carries its
// per-channel `gamma` whatever layer_scale_init_value is. The model's output is the spatial mean (as a CLS
// token) concatenated in front of the H x W tokens, all through the final LayerNorm: [1 + H W, C].
#include <fmt/format.h>

#include "families/config_lists.hpp"
#include "families/convnext_common.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace dinov3_convnext_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const auto hidden = size_list(c, "hidden_sizes", {96, 192, 384, 768});
  const auto depths = size_list(c, "depths", {3, 3, 9, 3});
  require_length(c, "depths", depths, hidden.size());
  const std::string act = c.text({"hidden_act"}, "gelu");
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));

  auto x = b.input({channels, image, image}, "pixels");
  std::int64_t block = 0;
  std::int64_t width = channels;
  for (std::size_t s = 0; s < hidden.size(); ++s) {
    const Scope stage = Scope("stages") / static_cast<std::int64_t>(s);
    const Scope down = stage / "downsample_layers";
    if (s == 0) {
      x = conv2d(b, x, "Stem_Conv", {.module = down / 0, .in = channels, .out = hidden[0], .kernel = 4, .stride = 4});
      x = convnext::channels_first_norm(b, x, "Stem_LayerNorm", down / 1);
    } else {
      x = convnext::channels_first_norm(b, x, fmt::format("Downsample_LayerNorm_{}", s), down / 0);
      x = conv2d(b, x, fmt::format("Downsample_Conv_{}", s),
                 {.module = down / 1, .in = width, .out = hidden[s], .kernel = 2, .stride = 2});
    }
    width = hidden[s];
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      const Scope l = stage / "layers" / j;
      x = convnext::layer(b, x, block, width, act,
                          {.layer = l, .dwconv = l / "depthwise_conv", .norm = l / "layer_norm",
                           .up = l / "pointwise_conv1", .down = l / "pointwise_conv2", .scale = l("gamma")});
    }
  }
  b.set_block(-1);
  // The pooled mean joins the flattened map as a leading token (a concatenation: no parameters).
  const std::int64_t tokens = x.shape.size() == 3 ? x.shape[1] * x.shape[2] : 0;
  auto pooled = pool(b, x, "Global_AvgPool", false);
  auto joined = b.node(NodeType::Pooler, "Concat_Pooled_Tokens", {1 + tokens, width}, {pooled, x});
  return norm(b, joined, "Final_LayerNorm", {Scope("layer_norm")});
}

}  // namespace
}  // namespace dinov3_convnext_impl

const Family& dinov3_convnext_family() {
  static const Family family{"dinov3_convnext", "models/dinov3_convnext/modeling_dinov3_convnext.py",
                             classes("DINOv3ConvNext"), dinov3_convnext_impl::build};
  return family;
}

}  // namespace neurarch::families
