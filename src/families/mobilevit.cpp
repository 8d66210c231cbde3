// MobileViT (models/mobilevit/modeling_mobilevit.py, transformers 4.47.1): a 3x3 stride-2 conv stem, two stages of
// MobileNetV2 inverted residuals (1x1 expand by expand_ratio rounded to a multiple of 8 -> 3x3 depthwise -> 1x1
// reduce, residual when the stride is 1 and the width is kept), then three MobileViT stages: an optional
// stride-2 inverted residual, a kxk conv, a bias-free 1x1 conv to hidden_size, ViT-named pre-norm transformer
// layers over the patch_size x patch_size unfolded map (each of the patch_area pixel positions attends over the
// patches: sequences of H*W/patch_area tokens), a LayerNorm, a 1x1 projection back and a kxk fusion of
// [input, projection]. Every conv but the 1x1-to-hidden one is bias-free with a BatchNorm and (but the reduce
// and projection ones) an activation. A 1x1 expansion to neck_hidden_sizes[6] and a global average pool end the
// model. output_stride 8 / 16 dilates the last stage(s) instead of striding.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "families/config_lists.hpp"
#include "families/mobilevit_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace mobilevit_impl {
namespace {

using namespace blocks;

using mobilevit::Ctx;
using mobilevit::conv_layer;
using mobilevit::inverted_residual;

struct VitStage {
  std::int64_t out, stride, hidden, layers, dilation;
};

Value mobilevit_layer(Ctx& c, const Value& input, const Scope& m, const VitStage& s, const Config& cfg) {
  const std::int64_t patch = cfg.dim({"patch_size"}, 2);
  const std::int64_t kernel = cfg.dim({"conv_kernel_size"}, 3);
  const std::int64_t heads = cfg.dim({"num_attention_heads"}, 4);
  const double mlp_ratio = cfg.number({"mlp_ratio"}, 2.0);
  const double hidden_dropout = cfg.number({"hidden_dropout_prob"}, 0.1);
  Value x = input;
  if (s.stride == 2)
    x = inverted_residual(c, x, m / "downsampling_layer", s.out, s.dilation == 1 ? 2 : 1,
                          s.dilation > 1 ? s.dilation / 2 : 1);
  const std::int64_t width = x.shape.front();
  const std::string id = fmt::format("{}", c.block);
  auto residual = x;
  auto h = conv_layer(c, x, id + "_kxk", m / "conv_kxk", {.out = width, .kernel = kernel});
  h = conv_layer(c, h, id + "_to_hidden", m / "conv_1x1", {.out = s.hidden, .normalize = false, .activate = false});
  // Unfolded: patch_area sequences of one token per patch (the map is resized up to whole patches).
  const std::int64_t grid_h = (h.shape[1] + patch - 1) / patch, grid_w = (h.shape[2] + patch - 1) / patch;
  const std::int64_t tokens = grid_h * grid_w * patch * patch;
  Value seq{h.node, {tokens, s.hidden}};
  vit::EncoderSpec enc;
  enc.layers = m / "transformer" / "layer";
  enc.hidden = s.hidden;
  enc.heads = heads;
  enc.intermediate = static_cast<std::int64_t>(static_cast<double>(s.hidden) * mlp_ratio);
  enc.activation = c.act;
  enc.qkv_bias = cfg.flag({"qkv_bias"}, true);
  for (std::int64_t i = 0; i < s.layers; ++i) {
    const std::int64_t block = c.block++;
    seq = vit::vit_layer(c.b, seq, enc, i, block);
    for (const auto& n : c.b.graph().nodes) {
      if (n.block != static_cast<int>(block)) continue;
      const Value v{n.index, n.out};
      if (n.attention) {
        c.b.at(v).attention->query_len = grid_h * grid_w;
        c.b.at(v).attention->kv_len = grid_h * grid_w;
      }
      if (n.attention || n.feed_forward) c.b.at(v).dropout = hidden_dropout;
    }
  }
  c.b.set_block(-1);
  seq = norm(c.b, seq, fmt::format("LayerNorm_{}", id), {m / "layernorm"});
  Value folded{seq.node, {s.hidden, h.shape[1], h.shape[2]}};
  auto projected = conv_layer(c, folded, id + "_projection", m / "conv_projection", {.out = width});
  // The fusion conv reads [residual, projection] concatenated on the channels.
  Value both{projected.node, {2 * width, h.shape[1], h.shape[2]}};
  auto fused = conv_layer(c, both, id + "_fusion", m / "fusion", {.out = width, .kernel = kernel});
  c.b.at(Value{fused.node - 1, {}}).inputs.push_back(residual.node);
  return fused;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const auto hidden = size_list(c, "hidden_sizes", {144, 192, 240});
  const auto neck = size_list(c, "neck_hidden_sizes", {16, 32, 64, 96, 128, 160, 640});
  require_length(c, "hidden_sizes", hidden, 3);
  require_length(c, "neck_hidden_sizes", neck, 7);
  const std::int64_t output_stride = c.dim({"output_stride"}, 32);
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 256));
  Ctx ctx{b, c.text({"hidden_act"}, "silu"), c.number({"expand_ratio"}, 4.0)};

  const Scope root = in.head == Head::Base ? Scope() : Scope("mobilevit");
  const Scope layer = root / "encoder" / "layer";
  auto x = b.input({channels, image, image}, "pixels");
  x = conv_layer(ctx, x, "Stem", root / "conv_stem", {.out = neck[0], .kernel = 3, .stride = 2});
  x = inverted_residual(ctx, x, layer / 0 / "layer" / 0, neck[1], 1);
  for (std::int64_t i = 0; i < 3; ++i) x = inverted_residual(ctx, x, layer / 1 / "layer" / i, neck[2], i == 0 ? 2 : 1);
  const std::int64_t dilation4 = output_stride == 8 ? 2 : 1;
  const std::int64_t dilation5 = output_stride == 8 ? 4 : output_stride == 16 ? 2 : 1;
  x = mobilevit_layer(ctx, x, layer / 2, {neck[3], 2, hidden[0], 2, 1}, c);
  x = mobilevit_layer(ctx, x, layer / 3, {neck[4], 2, hidden[1], 4, dilation4}, c);
  x = mobilevit_layer(ctx, x, layer / 4, {neck[5], 2, hidden[2], 3, dilation5}, c);
  x = conv_layer(ctx, x, "Expand", root / "conv_1x1_exp", {.out = neck[6]});
  x = pool(b, x, "Pooler", false);
  if (in.head == Head::Base) return x;
  return classifier(b, Value{x.node, {neck[6]}}, "Classifier", Scope("classifier"), neck[6], in.num_labels(), true);
}

}  // namespace
}  // namespace mobilevit_impl

const Family& mobilevit_family() {
  static const Family family{"mobilevit", "models/mobilevit/modeling_mobilevit.py",
                             classes("MobileViT", {heads::ForImageClassification}), mobilevit_impl::build};
  return family;
}

}  // namespace neurarch::families
