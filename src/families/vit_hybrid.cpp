// ViT-hybrid (models/vit_hybrid/modeling_vit_hybrid.py, transformers 4.47.1): ViT whose patch embedding reads a
// BiT backbone's feature map (backbone_config; by default BiT's post-activation "bottleneck" layout with depths
// [3, 4, 9], TF SAME padding and the stage3 map). The backbone is all of BitModel under
// embeddings.patch_embeddings.backbone.bit (every configured stage is built and run, whichever feature map is
// read); a patch_size Conv2d projects backbone_featmap_shape[1] channels to hidden_size. The CLS token and
// position table are sized by backbone_featmap_shape, not by image_size: a config whose image does not give
// that feature map (the default 224 for a 24x24 map) cannot run its forward. ViTHybridModel has a tanh pooler;
// the classifier reads the CLS token.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/group_norm.hpp"
#include "core/error.hpp"
#include "families/bit_common.hpp"
#include "families/clip_common.hpp"
#include "families/family.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace vit_hybrid_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// BitBackbone's feature map: the last of out_features (stage names), else of out_indices, else the last stage.
std::size_t feature_stage(const Config& bc, std::size_t stages) {
  const std::string where = fmt::format("{}: key 'out_features'", bc.origin());
  if (const auto* v = bc.raw({"out_features"}); v && v->is_array() && !v->empty()) {
    const std::string name = v->back().is_string() ? v->back().get<std::string>() : "";
    if (name == "stem") return 0;
    for (std::size_t i = 1; i <= stages; ++i)
      if (name == fmt::format("stage{}", i)) return i;
    throw Error(ErrorKind::InvalidInput, where, fmt::format("no stage named {}", v->back().dump()));
  }
  if (const auto* v = bc.raw({"out_indices"}); v && v->is_array() && !v->empty()) {
    const auto index = v->back().is_number_integer() ? v->back().get<std::int64_t>() : -1;
    if (index < 0 || static_cast<std::size_t>(index) > stages)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'out_indices'", bc.origin()),
                  fmt::format("no stage {}", v->back().dump()));
    return static_cast<std::size_t>(index);
  }
  return stages;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  static const nlohmann::json default_backbone{{"global_padding", "same"},
                                               {"layer_type", "bottleneck"},
                                               {"depths", {3, 4, 9}},
                                               {"out_features", {"stage3"}},
                                               {"embedding_dynamic_padding", true}};
  const Config bc = c.child("backbone_config", default_backbone);
  if (const std::string type = bc.text({"model_type"}, "bit"); type != "bit")
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'model_type'", bc.origin()),
                fmt::format("ViT-hybrid's patch embedding accepts only a BiT backbone, not '{}'", type));
  const bit::Settings backbone = bit::read_settings(bc);

  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t patch = c.dim({"patch_size"}, 1);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t configured_image = c.dim({"image_size"}, 224);
  const std::int64_t image = in.image_size(configured_image);
  const auto featmap = c.raw({"backbone_featmap_shape"});
  std::int64_t feature_dim = 1024, feature_h = 24, feature_w = 24;
  if (featmap) {
    if (!featmap->is_array() || featmap->size() != 4 || !(*featmap)[1].is_number_integer() ||
        !(*featmap)[2].is_number_integer() || !(*featmap)[3].is_number_integer())
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'backbone_featmap_shape'", c.origin()),
                  "expected [batch, channels, height, width]");
    feature_dim = (*featmap)[1].get<std::int64_t>();
    feature_h = (*featmap)[2].get<std::int64_t>();
    feature_w = (*featmap)[3].get<std::int64_t>();
  }
  const std::int64_t rows = (feature_h / patch) * (feature_w / patch) + 1;

  const Scope root = in.head == Head::Base ? Scope() : Scope("vit");
  const Scope emb = root / "embeddings";
  const Scope patches = emb / "patch_embeddings";
  auto pixels = b.input({channels, image, image}, "pixels");
  if (backbone.channels != channels)
    b.fail(pixels, fmt::format("the backbone expects {} channels, the model {}", backbone.channels, channels));
  const Scope bit_root = patches / "backbone" / "bit";
  const bit::Trunk trunk = bit::trunk(b, pixels, backbone, bit_root);
  // BitModel's final norm exists in the pre-activation layout; the backbone's feature maps are read before it.
  if (backbone.preactivation)
    group_norm(b, trunk.last, "Backbone_Final_GroupNorm", bit_root / "norm", backbone.groups, backbone.activation);
  const std::size_t stage = feature_stage(bc, trunk.stages.size() - 1);
  const Value features = trunk.stages[stage];

  const std::int64_t grid_h = features.shape.size() == 3 ? features.shape[1] / patch : 0;
  const std::int64_t grid_w = features.shape.size() == 3 ? features.shape[2] / patch : 0;
  auto x = b.node(NodeType::PatchEmbed, "Patch_Embed", {1 + grid_h * grid_w, hidden}, {features}, patches / "projection");
  b.parameter(x, (patches / "projection")("weight"), {hidden, feature_dim, patch, patch}, graph::TensorRole::Conv);
  b.parameter(x, (patches / "projection")("bias"), {hidden}, graph::TensorRole::Bias);
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  if (trunk.channels[stage] != feature_dim)
    b.fail(x, fmt::format("backbone_featmap_shape gives {} channels, the backbone's feature map has {}", feature_dim,
                          trunk.channels[stage]));
  else if (image != configured_image)
    b.fail(x, fmt::format("ViT-hybrid refuses a {}x{} image: it expects the configured image_size {} unless forward() "
                          "is called with interpolate_pos_encoding=True",
                          image, image, configured_image));
  else if (1 + grid_h * grid_w != rows)
    b.fail(x, fmt::format("a {}x{} image gives a {}x{} feature map, {} tokens with the CLS token, but the position "
                          "table (sized by backbone_featmap_shape {}x{}) has {} rows",
                          image, image, features.shape[1], features.shape[2], 1 + grid_h * grid_w, feature_h,
                          feature_w, rows));
  x = vit::position_table(b, x, emb, rows, x.shape);
  b.at(x).dropout = c.number({"hidden_dropout_prob"}, 0.0);

  x = vit::vit_layers(b, x,
                      {.layers = root / "encoder" / "layer",
                       .hidden = hidden,
                       .count = c.dim({"num_hidden_layers"}, 12),
                       .heads = c.dim({"num_attention_heads"}, 12),
                       .intermediate = c.dim({"intermediate_size"}, 3072),
                       .activation = c.text({"hidden_act"}, "gelu"),
                       .qkv_bias = c.flag({"qkv_bias"}, true),
                       .first_block = b.next_block()});
  x = norm(b, x, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return pooler(b, x, "Pooler", Scope("pooler") / "dense", hidden);
  return classifier(b, vit::first_token(x), "Classifier", Scope("classifier"), hidden, in.num_labels(), true);
}

}  // namespace
}  // namespace vit_hybrid_impl

const Family& vit_hybrid_family() {
  static const Family family{"vit-hybrid", "models/vit_hybrid/modeling_vit_hybrid.py",
                             classes("ViTHybrid", {heads::ForImageClassification}), vit_hybrid_impl::build};
  return family;
}

}  // namespace neurarch::families
