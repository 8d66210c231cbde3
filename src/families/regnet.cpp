// RegNet (models/regnet/modeling_regnet.py, transformers 4.47.1): a 3x3 stride-2 conv + BatchNorm + activation
// stem, then stages of X layers (1x1 conv -> grouped 3x3 conv, groups = out / groups_width, carrying the
// stage's stride -> 1x1 conv, each with BatchNorm, added to a shortcut, then the activation) or, for
// layer_type "y", Y layers with a squeeze-and-excitation (reduced to round(in / 4) channels) after the
// grouped conv. A stage's first layer gets a 1x1 conv + BatchNorm shortcut when its width or stride changes;
// the first stage strides only with downsample_in_first_stage. A global average pool ends the model; the
// classifier (`classifier.1` behind a Flatten) reads it.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "blocks/squeeze_excite.hpp"
#include "families/config_lists.hpp"
#include "families/conv_bn.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace regnet_impl {
namespace {

using namespace blocks;

// RegNetConvLayer: a bias-free conv (padding kernel / 2), BatchNorm, optional activation.
Value conv_layer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                 std::int64_t out, std::int64_t kernel, std::int64_t stride, std::int64_t groups,
                 const std::string& activation) {
  return conv_bn(b, x, name,
                 {.module = module, .in = in, .out = out, .kernel = kernel, .stride = stride, .groups = groups,
                  .activation = activation});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t embedding = c.dim({"embedding_size"}, 32);
  const auto hidden = size_list(c, "hidden_sizes", {128, 192, 512, 1088});
  const auto depths = size_list(c, "depths", {2, 6, 12, 2});
  const std::int64_t groups_width = c.dim({"groups_width"}, 64);
  const std::string layer_type = c.text({"layer_type"}, "y");
  const std::string act = c.text({"hidden_act"}, "relu");
  const bool first_stride = c.flag({"downsample_in_first_stage"}, true);
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));
  const bool squeeze = layer_type != "x";

  const Scope root = in.head == Head::Base ? Scope() : Scope("regnet");
  auto x = b.input({channels, image, image}, "pixels");
  x = conv_layer(b, x, "Stem", root / "embedder" / "embedder", channels, embedding, 3, 2, 1, act);

  std::int64_t width = embedding;
  std::int64_t block = 0;
  const std::size_t stages = std::min(hidden.size(), depths.size());
  for (std::size_t s = 0; s < stages; ++s) {
    const std::int64_t out = hidden[s];
    const std::int64_t groups = std::max<std::int64_t>(1, out / groups_width);
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = root / "encoder" / "stages" / static_cast<std::int64_t>(s) / "layers" / j;
      const std::int64_t stride = j == 0 && (s > 0 || first_stride) ? 2 : 1;
      auto name = [&](const std::string& what) { return fmt::format("{}_{}", what, block); };
      Value shortcut = x;
      if (width != out || stride != 1) {
        shortcut = conv2d(b, x, name("Shortcut_Conv"),
                          {.module = l / "shortcut" / "convolution", .in = width, .out = out, .kernel = 1,
                           .stride = stride, .bias = false});
        shortcut = batch_norm(b, shortcut, name("Shortcut_BatchNorm"), l / "shortcut" / "normalization");
      }
      const Scope seq = l / "layer";
      auto h = conv_layer(b, x, name("Reduce"), seq / 0, width, out, 1, 1, 1, act);
      h = conv_layer(b, h, name("Grouped"), seq / 1, out, out, 3, stride, groups, act);
      std::int64_t next = 2;
      if (squeeze) {
        const Scope se = seq / next++ / "attention";
        h = squeeze_excite(b, h, name("SqueezeExcite"),
                           {.reduce = se / 0, .expand = se / 2, .channels = out,
                            .reduced = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(width) / 4.0)),
                            .activation = "relu"});
      }
      h = conv_layer(b, h, name("Expand"), seq / next, out, out, 1, 1, 1, "");
      x = add(b, h, shortcut, name("Add"));
      b.at(x).activation = act;
      width = out;
    }
  }
  b.set_block(-1);
  x = pool(b, x, "Global_AvgPool", false);
  if (in.head == Head::Base) return x;
  return classifier(b, Value{x.node, {width}}, "Classifier", Scope("classifier") / 1, hidden.back(), in.num_labels(),
                    true);
}

}  // namespace
}  // namespace regnet_impl

const Family& regnet_family() {
  static const Family family{"regnet", "models/regnet/modeling_regnet.py",
                             classes("RegNet", {heads::ForImageClassification}), regnet_impl::build};
  return family;
}

}  // namespace neurarch::families
