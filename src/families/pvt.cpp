// PVT (models/pvt/modeling_pvt.py, transformers 4.47.1): per stage a non-overlapping patch embedding
// (patch_embeddings.<i>: Conv2d with kernel patch_sizes[i] and stride strides[i], a LayerNorm, learned
// position_embeddings sized for image_size / 2^(i+1) (the configured image_size for stage 0) and, in the last
// stage, a CLS token), then pre-norm layers of spatial-reduction attention (sequence_reduction_ratios[i]) and a
// plain MLP mlp_ratios[i] wide (mix_transformer.hpp). Tokens fold back into a map between stages; the last
// stage's tokens (CLS first) go through the encoder's LayerNorm, and the classifier reads the CLS token. Other
// image sizes interpolate the position tables.

#include <fmt/format.h>

#include "families/family.hpp"
#include "families/mix_transformer.hpp"

namespace neurarch::families {
namespace pvt_impl {
namespace {

using namespace blocks;
using graph::NodeType;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t stages = c.dim({"num_encoder_blocks"}, 4);
  // PvtConfig: PVT v2's lists with wider stages, non-overlapping patches and its own ratio key.
  mix::StageDefaults defaults = mix::pvt_v2_defaults();
  defaults.lists.hidden = {64, 128, 320, 512};
  defaults.lists.patches = {4, 2, 2, 2};
  defaults.sr_key = "sequence_reduction_ratios";
  const auto [depths, hidden, sr, patches, strides, heads, ratios] = mix::read_stages(c, defaults, stages);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const bool qkv_bias = c.flag({"qkv_bias"}, true);
  const double hidden_dropout = c.number({"hidden_dropout_prob"}, 0.0);
  const double attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.0);
  const std::int64_t configured = c.dim({"image_size"}, 224);
  const std::int64_t image = in.image_size(configured);

  const Scope root = in.head == Head::Base ? Scope() : Scope("pvt");
  const Scope encoder = root / "encoder";
  Value map = b.input({channels, image, image}, "pixels");
  Value x;
  std::int64_t block = 0;
  for (std::size_t s = 0; s < static_cast<std::size_t>(stages); ++s) {
    const auto stage = static_cast<std::int64_t>(s);
    const std::int64_t dim = hidden[s];
    const bool cls = s + 1 == static_cast<std::size_t>(stages);
    const Scope embed = encoder / "patch_embeddings" / stage;
    map = conv2d(b, map, fmt::format("Patch_Embed_Conv_{}", s),
                 {.module = embed / "projection", .in = map.shape.front(), .out = dim, .kernel = patches[s],
                  .stride = strides[s]});
    const std::int64_t h = map.shape[1], w = map.shape[2];
    x = norm(b, mix::as_tokens(map), fmt::format("Patch_Embed_LayerNorm_{}", s), {embed / "layer_norm"});
    // The table's size: the stage's nominal input side over its patch.
    const std::int64_t side = (s == 0 ? configured : configured >> (s + 1)) / patches[s];
    auto pos = b.node(NodeType::LearnedPosEmbed, fmt::format("Learned_Pos_Embed_{}", s),
                      {(cls ? 1 : 0) + h * w, dim}, {x}, embed);
    b.parameter(pos, embed("position_embeddings"), {1, side * side + (cls ? 1 : 0), dim}, graph::TensorRole::Embedding);
    if (cls) b.parameter(pos, embed("cls_token"), {1, 1, dim}, graph::TensorRole::Embedding);
    b.at(pos).dropout = hidden_dropout;
    x = pos;
    for (std::int64_t j = 0; j < depths[s]; ++j, ++block) {
      const Scope l = encoder / "block" / stage / j;
      const Scope self = l / "attention" / "self";
      const Scope mlp = l / "mlp";
      x = mix::layer(b, x, block,
                     {.dim = dim, .heads = heads[s], .sr_ratio = sr[s], .inner = dim * ratios[s], .h = h, .w = w,
                      .activation = act, .qkv_bias = qkv_bias, .attention_dropout = attention_dropout,
                      .hidden_dropout = hidden_dropout},
                     {.norm1 = l / "layer_norm_1", .norm2 = l / "layer_norm_2", .attention = l / "attention",
                      .q = self / "query", .k = self / "key", .v = self / "value",
                      .o = l / "attention" / "output" / "dense", .reduction = self / "sequence_reduction",
                      .reduction_norm = self / "layer_norm", .dense1 = mlp / "dense1", .dense2 = mlp / "dense2"});
    }
    b.set_block(-1);
    if (!cls) map = mix::as_map(x, h, w);
  }
  x = norm(b, x, "Final_LayerNorm", {encoder / "layer_norm"});
  if (in.head == Head::Base) return x;
  return classifier(b, Value{x.node, {hidden.back()}}, "Classifier", Scope("classifier"), hidden.back(),
                    in.num_labels(), true);
}

}  // namespace
}  // namespace pvt_impl

const Family& pvt_family() {
  static const Family family{"pvt", "models/pvt/modeling_pvt.py",
                             classes("Pvt", {heads::ForImageClassification}), pvt_impl::build};
  return family;
}

}  // namespace neurarch::families
