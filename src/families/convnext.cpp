// ConvNeXt (models/convnext/modeling_convnext.py, transformers 4.47.1): a patch_size-stride conv stem with a
// channels-first LayerNorm, then stages whose first one keeps the stem's width and resolution and whose others
// downsample with a channels-first LayerNorm + 2x2 stride-2 conv; each layer is a 7x7 depthwise conv, then, over
// the channels-last view, LayerNorm -> pwconv1 (4x) -> act -> pwconv2 -> layer_scale_parameter (when
// layer_scale_init_value > 0), added to the input. The pooled output is the LayerNorm of the spatial mean.
// Any image size runs; shapes of the channels-last sublayers are shown as [H, W, C].
#include <fmt/format.h>

#include "families/config_lists.hpp"
#include "families/convnext_common.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t patch = c.dim({"patch_size"}, 4);
  const auto hidden = size_list(c, "hidden_sizes", {96, 192, 384, 768});
  const auto depths = size_list(c, "depths", {3, 3, 9, 3});
  require_length(c, "depths", depths, hidden.size());
  const std::string act = c.text({"hidden_act"}, "gelu");
  const bool scaled = c.number({"layer_scale_init_value"}, 1e-6) > 0;
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));

  const Scope root = in.head == Head::Base ? Scope() : Scope("convnext");
  const Scope emb = root / "embeddings";
  auto x = b.input({channels, image, image}, "pixels");
  x = conv2d(b, x, "Stem_Conv",
             {.module = emb / "patch_embeddings", .in = channels, .out = hidden[0], .kernel = patch, .stride = patch});
  x = convnext::channels_first_norm(b, x, "Stem_LayerNorm", emb / "layernorm");

  std::int64_t block = 0;
  std::int64_t width = hidden[0];
  for (std::size_t s = 0; s < hidden.size(); ++s) {
    const Scope stage = root / "encoder" / "stages" / static_cast<std::int64_t>(s);
    if (s > 0 || width != hidden[s]) {
      const Scope down = stage / "downsampling_layer";
      x = convnext::channels_first_norm(b, x, fmt::format("Downsample_LayerNorm_{}", s), down / 0);
      x = conv2d(b, x, fmt::format("Downsample_Conv_{}", s),
                 {.module = down / 1, .in = width, .out = hidden[s], .kernel = 2, .stride = s > 0 ? 2 : 1});
    }
    width = hidden[s];
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      const Scope l = stage / "layers" / j;
      x = convnext::layer(b, x, block, width, act,
                          {.layer = l, .dwconv = l / "dwconv", .norm = l / "layernorm", .up = l / "pwconv1",
                           .down = l / "pwconv2", .scale = scaled ? l("layer_scale_parameter") : ""});
    }
  }
  b.set_block(-1);
  x = pool(b, x, "Global_AvgPool", false);
  x = norm(b, Value{x.node, {width}}, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return x;
  return classifier(b, x, "Classifier", Scope("classifier"), width, in.num_labels(), true);
}

}  // namespace

const Family& convnext_family() {
  static const Family family{"convnext", "models/convnext/modeling_convnext.py",
                             {{"ConvNextModel", Head::Base},
                              {"ConvNextForImageClassification", Head::ImageClassification}},
                             build};
  return family;
}

}  // namespace neurarch::families
