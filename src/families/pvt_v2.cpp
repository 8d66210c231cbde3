// PVT v2 (models/pvt_v2/modeling_pvt_v2.py, transformers 4.47.1): SegFormer's Mix Transformer under PVT v2's
// names (mix_transformer.hpp). Per stage an overlapping patch embedding (Conv2d with patch_sizes[i], strides[i],
// padding k / 2, then a LayerNorm), layers of spatial-reduction attention (sr_ratios[i]; with linear_attention
// keys and values come from a 7x7 pooled map through a 1x1 conv instead) and a depthwise-conv MLP mlp_ratios[i]
// wide, then the stage's LayerNorm; tokens fold back into a map for the next stage. The classifier averages the
// last stage's tokens.

#include <fmt/format.h>

#include "families/family.hpp"
#include "families/mix_transformer.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace pvt_v2_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t stages = c.dim({"num_encoder_blocks"}, 4);
  const auto [depths, hidden, sr, patches, strides, heads, ratios] = mix::read_stages(c, mix::pvt_v2_defaults(), stages);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const bool linear = c.flag({"linear_attention"}, false);
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0);
  const vit::Size2 configured = vit::read_size2(c, "image_size", {224, 224, false});
  const std::int64_t image_h = in.requested_image_size ? *in.requested_image_size : configured.h;
  const std::int64_t image_w = in.requested_image_size ? *in.requested_image_size : configured.w;

  const Scope root = in.head == Head::Base ? Scope() : Scope("pvt_v2");
  Value map = b.input({channels, image_h, image_w}, "pixels");
  Value x;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < static_cast<std::size_t>(stages); ++s) {
    const Scope stage = root / "encoder" / "layers" / static_cast<std::int64_t>(s);
    const std::int64_t dim = hidden[s];
    map = conv2d(b, map, fmt::format("Patch_Embed_Conv_{}", s),
                 {.module = stage / "patch_embedding" / "proj", .in = map.shape.front(), .out = dim,
                  .kernel = patches[s], .stride = strides[s], .padding = patches[s] / 2});
    const std::int64_t h = map.shape[1], w = map.shape[2];
    x = norm(b, mix::as_tokens(map), fmt::format("Patch_Embed_LayerNorm_{}", s), {stage / "patch_embedding" / "layer_norm"});
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      const Scope l = stage / "blocks" / j;
      const Scope attn = l / "attention";
      const Scope mlp = l / "mlp";
      x = mix::layer(b, x, block,
                     {.dim = dim, .heads = heads[s], .sr_ratio = sr[s], .inner = dim * ratios[s], .h = h, .w = w,
                      .activation = act, .qkv_bias = qkv_bias, .linear_attention = linear,
                      .attention_dropout = attention_dropout, .hidden_dropout = hidden_dropout},
                     {.norm1 = l / "layer_norm_1", .norm2 = l / "layer_norm_2", .attention = attn,
                      .q = attn / "query", .k = attn / "key", .v = attn / "value", .o = attn / "proj",
                      .reduction = attn / "spatial_reduction", .reduction_norm = attn / "layer_norm",
                      .dense1 = mlp / "dense1", .dwconv = mlp / "dwconv" / "dwconv", .dense2 = mlp / "dense2"});
    }
    b.set_block(-1);
    x = norm(b, x, fmt::format("Stage_LayerNorm_{}", s), {stage / "layer_norm"});
    map = mix::as_map(x, h, w);
  }
  if (in.head == Head::Base) return map;
  return classifier(b, Value{x.node, {hidden.back()}}, "Classifier", Scope("classifier"), hidden.back(),
                    in.num_labels(), true);
}

}  // namespace
}  // namespace pvt_v2_impl

const Family& pvt_v2_family() {
  static const Family family{"pvt_v2", "models/pvt_v2/modeling_pvt_v2.py",
                             classes("PvtV2", {heads::ForImageClassification}), pvt_v2_impl::build};
  return family;
}

}  // namespace neurarch::families
