// PoolFormer (models/poolformer/modeling_poolformer.py, transformers 4.47.1): MetaFormer with pooling as the
// token mixer. Each stage opens with a patch embedding (patch_embeddings.<i>.projection: Conv2d with
// patch_sizes[i], strides[i], padding[i]; its norm is an Identity), then layers of
//   x + layer_scale_1 * (AvgPool(GroupNorm(x)) - GroupNorm(x)),  then  h + layer_scale_2 * MLP(GroupNorm(h)),
// the norms being single-group GroupNorms and the MLP two 1x1 convs (mlp_ratio wider, hidden_act between).
// Layer scales exist when use_layer_scale is on, one value per channel. PoolFormerModel ends after the last
// stage; the classifier takes a final single-group GroupNorm (`norm`) and the spatial mean.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/group_norm.hpp"
#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace poolformer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// A per-channel scale of a [C, H, W] map (layer_scale.unsqueeze(-1).unsqueeze(-1) * x).
Value channel_scale(GraphBuilder& b, const Value& x, const std::string& name, const std::string& tensor) {
  auto out = b.node(NodeType::LayerScale, name, x.shape, {x});
  b.parameter(out, tensor, {x.shape.empty() ? 0 : x.shape.front()}, graph::TensorRole::Other);
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const auto hidden = size_list(c, "hidden_sizes", {64, 128, 320, 512});
  const auto depths = size_list(c, "depths", {2, 2, 6, 2});
  const auto patch_sizes = size_list(c, "patch_sizes", {7, 3, 3, 3});
  const auto strides = size_list(c, "strides", {4, 2, 2, 2});
  const auto* pad_json = c.raw({"padding"});
  std::vector<std::int64_t> padding{2, 1, 1, 1};
  if (pad_json) {
    // Paddings may be 0, which size_list refuses.
    padding.clear();
    if (!pad_json->is_array())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'padding'", c.origin()), "expected a list");
    for (const auto& p : *pad_json) {
      if (!p.is_number_integer() || p.get<std::int64_t>() < 0)
        throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'padding'", c.origin()),
                    fmt::format("expected non-negative paddings, found {}", p.dump()));
      padding.push_back(p.get<std::int64_t>());
    }
  }
  const std::int64_t stages = c.dim({"num_encoder_blocks"}, 4);
  for (const auto& [key, list] : {std::pair{"hidden_sizes", &hidden}, {"depths", &depths},
                                  {"patch_sizes", &patch_sizes}, {"strides", &strides}, {"padding", &padding}})
    if (static_cast<std::int64_t>(list->size()) < stages)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                  fmt::format("has {} entries for {} stages (num_encoder_blocks)", list->size(), stages));
  const std::int64_t pool_size = c.dim({"pool_size"}, 3);
  const double mlp_ratio = c.number({"mlp_ratio"}, 4.0);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const bool scaled = c.flag({"use_layer_scale"}, true);
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));

  const Scope root = in.head == Head::Base ? Scope() : Scope("poolformer");
  const Scope encoder = root / "encoder";
  auto x = b.input({channels, image, image}, "pixels");
  std::int64_t width = channels;
  std::int64_t block = 0;
  for (std::int64_t s = 0; s < stages; ++s) {
    const auto i = static_cast<std::size_t>(s);
    x = conv2d(b, x, fmt::format("Patch_Embed_{}", s),
               {.module = encoder / "patch_embeddings" / s / "projection", .in = width, .out = hidden[i],
                .kernel = patch_sizes[i], .stride = strides[i], .padding = padding[i]});
    width = hidden[i];
    const auto inner = static_cast<std::int64_t>(static_cast<double>(width) * mlp_ratio);
    for (std::int64_t j = 0; j < depths[i]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = encoder / "block" / s / j;
      auto name = [&](const char* what) { return fmt::format("{}_{}", what, block); };
      auto h = group_norm(b, x, name("GroupNorm1"), l / "before_norm", 1);
      auto pooled = pool(b, h, name("AvgPool"), false, pool_size, 1, pool_size / 2);
      h = add(b, pooled, h, name("Pool_Minus_Input"));
      if (scaled) h = channel_scale(b, h, name("LayerScale1"), l("layer_scale_1"));
      auto residual = add(b, h, x, name("Add1"));
      h = group_norm(b, residual, name("GroupNorm2"), l / "after_norm", 1);
      h = conv2d(b, h, name("MLP_Conv1"), {.module = l / "output" / "conv1", .in = width, .out = inner});
      b.at(h).activation = act;
      h = conv2d(b, h, name("MLP_Conv2"), {.module = l / "output" / "conv2", .in = inner, .out = width});
      if (scaled) h = channel_scale(b, h, name("LayerScale2"), l("layer_scale_2"));
      x = add(b, h, residual, name("Add2"));
    }
  }
  b.set_block(-1);
  if (in.head == Head::Base) return x;
  x = group_norm(b, x, "Final_GroupNorm", Scope("norm"), 1);
  x = pool(b, x, "Global_AvgPool", false);
  return classifier(b, Value{x.node, {width}}, "Classifier", Scope("classifier"), width, in.num_labels(), true);
}

}  // namespace
}  // namespace poolformer_impl

const Family& poolformer_family() {
  static const Family family{"poolformer", "models/poolformer/modeling_poolformer.py",
                             classes("PoolFormer", {heads::ForImageClassification}), poolformer_impl::build};
  return family;
}

}  // namespace neurarch::families
