// VAN, the Visual Attention Network (models/van/modeling_van.py, transformers 4.47.1): per stage an
// overlapping patch embedding (Conv2d with patch_sizes[i], strides[i], padding k / 2, then BatchNorm), layers of
//   x + attention_scaling * SpatialAttention(BatchNorm(x)),  then  h + mlp_scaling * MLP(BatchNorm(h)),
// where the spatial attention is a 1x1 projection + activation, large-kernel attention (a 5x5 depthwise conv,
// a 7x7 depthwise conv dilated by 3, a 1x1 conv, multiplying its input), a 1x1 projection and a shortcut, and
// the MLP is 1x1 conv -> 3x3 depthwise conv -> activation -> 1x1 conv (mlp_ratios[i] wide). Each stage ends in a
// LayerNorm over the channels of every position. The model's pooled output is the LayerNorm of the spatial
// mean; the classifier reads it. The large-kernel product is modelled as a LayerScale node reading both maps.
#include <initializer_list>
#include <utility>

#include <fmt/format.h>

#include "families/config_lists.hpp"
#include "families/family.hpp"
#include "families/mix_transformer.hpp"

namespace neurarch::families {
namespace van_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value channel_scale(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module) {
  auto out = b.node(NodeType::LayerScale, name, x.shape, {x}, module);
  b.parameter(out, module("weight"), {x.shape.empty() ? 0 : x.shape.front()}, graph::TensorRole::Norm);
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const auto patches = size_list(c, "patch_sizes", {7, 3, 3, 3});
  const auto strides = size_list(c, "strides", {4, 2, 2, 2});
  const auto hidden = size_list(c, "hidden_sizes", {64, 128, 320, 512});
  const auto depths = size_list(c, "depths", {3, 3, 12, 3});
  const auto ratios = size_list(c, "mlp_ratios", {8, 8, 4, 4});
  using Named = std::pair<const char*, const std::vector<std::int64_t>*>;
  for (const auto& [key, list] : std::initializer_list<Named>{
           {"patch_sizes", &patches}, {"strides", &strides}, {"depths", &depths}, {"mlp_ratios", &ratios}})
    require_length(c, key, *list, hidden.size());
  const std::string act = c.text({"hidden_act"}, "gelu");
  const double dropout = c.number({"dropout_rate"}, 0.0);
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));

  const Scope root = in.head == Head::Base ? Scope() : Scope("van");
  auto x = b.input({channels, image, image}, "pixels");
  std::int64_t block = 0;
  for (std::size_t s = 0; s < hidden.size(); ++s) {
    const Scope stage = root / "encoder" / "stages" / static_cast<std::int64_t>(s);
    const std::int64_t dim = hidden[s];
    x = conv2d(b, x, fmt::format("Patch_Embed_Conv_{}", s),
               {.module = stage / "embeddings" / "convolution", .in = x.shape.front(), .out = dim,
                .kernel = patches[s], .stride = strides[s], .padding = patches[s] / 2});
    x = batch_norm(b, x, fmt::format("Patch_Embed_BatchNorm_{}", s), stage / "embeddings" / "normalization");
    const std::int64_t inner = dim * ratios[s];
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      b.set_block(static_cast<int>(block));
      const Scope l = stage / "layers" / j;
      const Scope attn = l / "attention";
      const Scope lka = attn / "attention_layer" / "attention";
      auto name = [&](const char* what) { return fmt::format("{}_{}", what, block); };
      auto h = batch_norm(b, x, name("BatchNorm1"), l / "pre_normomalization");
      auto projected = conv2d(b, h, name("Attention_PreProjection"),
                              {.module = attn / "pre_projection" / "conv", .in = dim, .out = dim});
      b.at(projected).activation = act;
      auto a = conv2d(b, projected, name("LKA_DepthWise"),
                      {.module = lka / "depth_wise", .in = dim, .out = dim, .kernel = 5, .padding = 2, .groups = dim});
      // 7x7 dilated by 3 with padding 9: the map keeps its size (a 19x19 reach), as a 7x7 with padding 3.
      a = conv2d(b, a, name("LKA_DepthWiseDilated"),
                 {.module = lka / "depth_wise_dilated", .in = dim, .out = dim, .kernel = 7, .padding = 3,
                  .groups = dim});
      a = conv2d(b, a, name("LKA_PointWise"), {.module = lka / "point_wise", .in = dim, .out = dim});
      a = b.node(NodeType::LayerScale, name("LKA_Product"), a.shape, {projected, a});
      a = conv2d(b, a, name("Attention_PostProjection"), {.module = attn / "post_projection", .in = dim, .out = dim});
      a = add(b, a, h, name("Attention_Shortcut"));
      a = channel_scale(b, a, name("LayerScale1"), l / "attention_scaling");
      auto residual = add(b, a, x, name("Add1"));
      auto m = batch_norm(b, residual, name("BatchNorm2"), l / "post_normalization");
      m = conv2d(b, m, name("MLP_In"), {.module = l / "mlp" / "in_dense", .in = dim, .out = inner});
      m = conv2d(b, m, name("MLP_DepthWise"),
                 {.module = l / "mlp" / "depth_wise", .in = inner, .out = inner, .kernel = 3, .padding = 1,
                  .groups = inner});
      b.at(m).activation = act;
      b.at(m).dropout = dropout;
      m = conv2d(b, m, name("MLP_Out"), {.module = l / "mlp" / "out_dense", .in = inner, .out = dim});
      b.at(m).dropout = dropout;
      m = channel_scale(b, m, name("LayerScale2"), l / "mlp_scaling");
      x = add(b, m, residual, name("Add2"));
    }
    b.set_block(-1);
    const std::int64_t h = x.shape[1], w = x.shape[2];
    x = mix::as_map(norm(b, mix::as_tokens(x), fmt::format("Stage_LayerNorm_{}", s), {stage / "normalization"}), h, w);
  }
  const std::int64_t width = hidden.back();
  auto pooled = pool(b, x, "Global_AvgPool", false);
  pooled = norm(b, Value{pooled.node, {width}}, "Final_LayerNorm", {root / "layernorm"});
  if (in.head == Head::Base) return pooled;
  return classifier(b, pooled, "Classifier", Scope("classifier"), width, in.num_labels(), true);
}

}  // namespace
}  // namespace van_impl

const Family& van_family() {
  static const Family family{"van", "models/van/modeling_van.py",
                             classes("Van", {heads::ForImageClassification}), van_impl::build};
  return family;
}

}  // namespace neurarch::families
