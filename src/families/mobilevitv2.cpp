// MobileViT V2 (models/mobilevitv2/modeling_mobilevitv2.py, transformers 4.47.1): widths scaled by
// width_multiplier (make_divisible), a 3x3 stride-2 stem, two MobileNetV2 stages (expand_ratio), then three
// stages of an inverted-residual downsample, a depthwise kxk conv, a bias-free 1x1 conv to the attention width
// and n_attn_blocks layers over the unfolded map ([width, patch_area, patches]): GroupNorm(1) -> separable
// linear self-attention (a 1x1 qkv_proj to 1 + 2 width channels: a softmax over the patches of the one query
// channel weights the keys into one context vector per pixel position, which scales ReLU(values); no patch x
// patch matrix) -> 1x1 out_proj, and GroupNorm(1) -> 1x1 conv FFN (ffn_multiplier, rounded down to a multiple
// of 16), each added back; a GroupNorm, the fold back and a 1x1 conv + BatchNorm projection. The model
// averages the last map; the classifier is a Linear. output_stride 8 / 16 dilates the last stage(s).
#include <algorithm>

#include <fmt/format.h>

#include "blocks/group_norm.hpp"
#include "families/config_lists.hpp"
#include "families/mobilevit_common.hpp"

namespace neurarch::families {
namespace mobilevitv2_impl {
namespace {

using namespace blocks;
using graph::NodeType;
using mobilevit::ConvLayer;
using mobilevit::Ctx;
using mobilevit::make_divisible;

struct Stage {
  std::int64_t out, attention_width, blocks, dilation;
};

// One transformer layer over the unfolded [width, patch_area, patches] map.
Value attention_layer(Ctx& c, const Value& x, const Scope& l, std::int64_t ffn, double attn_dropout,
                      double ffn_dropout) {
  const std::int64_t width = x.shape.front();
  const std::int64_t block = c.block++;
  c.b.set_block(static_cast<int>(block));
  Value h = group_norm(c.b, x, fmt::format("GroupNorm_{}_1", block), l / "layernorm_before", 1);
  const Scope attn = l / "attention";
  h = mobilevit::conv_layer(c, h, fmt::format("{}_qkv", block), attn / "qkv_proj",
                            {.out = 1 + 2 * width, .normalize = false, .activate = false, .bias = true});
  // The context vector weights the keys by the softmax of the query channel and scales ReLU(values): an
  // elementwise product over the [width, patch_area, patches] map, whose ReLU output the backward keeps.
  Value mixed = c.b.node(NodeType::Add, fmt::format("Linear_Attention_{}", block), x.shape, {h}, attn);
  c.b.at(mixed).activation = "relu";
  c.b.at(mixed).dropout = attn_dropout;
  h = mobilevit::conv_layer(c, mixed, fmt::format("{}_out_proj", block), attn / "out_proj",
                            {.out = width, .normalize = false, .activate = false, .bias = true});
  Value sum = add(c.b, h, x, fmt::format("Add_{}_1", block));
  h = group_norm(c.b, sum, fmt::format("GroupNorm_{}_2", block), l / "layernorm_after", 1);
  h = mobilevit::conv_layer(c, h, fmt::format("{}_ffn_up", block), l / "ffn" / "conv1",
                            {.out = ffn, .normalize = false, .activate = true, .bias = true});
  c.b.at(h).dropout = ffn_dropout;
  h = mobilevit::conv_layer(c, h, fmt::format("{}_ffn_down", block), l / "ffn" / "conv2",
                            {.out = width, .normalize = false, .activate = false, .bias = true});
  c.b.at(h).dropout = ffn_dropout;
  sum = add(c.b, h, sum, fmt::format("Add_{}_2", block));
  c.b.set_block(-1);
  return sum;
}

Value vit_stage(Ctx& c, const Value& input, const Scope& m, const Stage& s, const Config& cfg) {
  const std::int64_t patch = cfg.dim({"patch_size"}, 2);
  const std::int64_t kernel = cfg.dim({"conv_kernel_size"}, 3);
  const auto ffn_multiplier = cfg.number({"ffn_multiplier"}, 2.0);
  // Stride 2 always: dilated stages keep the size with a dilated depthwise conv instead.
  Value x = mobilevit::inverted_residual(c, input, m / "downsampling_layer", s.out, s.dilation == 1 ? 2 : 1,
                                         s.dilation > 1 ? s.dilation / 2 : 1);
  const std::string id = fmt::format("{}", c.block);
  const std::int64_t width = x.shape.front();
  Value h = mobilevit::conv_layer(c, x, id + "_kxk", m / "conv_kxk", {.out = width, .kernel = kernel, .groups = width});
  h = mobilevit::conv_layer(c, h, id + "_to_attention", m / "conv_1x1",
                            {.out = s.attention_width, .normalize = false, .activate = false});
  // F.unfold with kernel = stride = patch: patch_area positions x whole patches.
  const std::int64_t map_h = h.shape[1], map_w = h.shape[2];
  const std::int64_t patches = (map_h / patch) * (map_w / patch);
  Value seq{h.node, {s.attention_width, patch * patch, patches}};
  if (patches == 0) c.b.fail(h, fmt::format("a {}x{} map holds no {}x{} patch", map_h, map_w, patch, patch));
  const auto ffn = static_cast<std::int64_t>(ffn_multiplier * static_cast<double>(s.attention_width)) / 16 * 16;
  for (std::int64_t i = 0; i < s.blocks; ++i)
    seq = attention_layer(c, seq, m / "transformer" / "layer" / i, ffn, cfg.number({"attn_dropout"}, 0.0),
                          cfg.number({"ffn_dropout"}, 0.0));
  seq = group_norm(c.b, seq, fmt::format("GroupNorm_{}", id), m / "layernorm", 1);
  const Value folded{seq.node, {s.attention_width, map_h, map_w}};
  return mobilevit::conv_layer(c, folded, id + "_projection", m / "conv_projection", {.out = width, .activate = false});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const double wm = c.number({"width_multiplier"}, 1.0);
  const auto blocks_per_stage = size_list(c, "n_attn_blocks", {2, 4, 3});
  const auto attention_dims = size_list(c, "base_attn_unit_dims", {128, 192, 256});
  require_length(c, "n_attn_blocks", blocks_per_stage, 3);
  require_length(c, "base_attn_unit_dims", attention_dims, 3);
  const std::int64_t output_stride = c.dim({"output_stride"}, 32);
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 256));
  Ctx ctx{b, c.text({"hidden_act"}, "swish"), c.number({"expand_ratio"}, 2.0)};

  const std::int64_t dim0 = make_divisible(std::clamp(32 * wm, 16.0, 64.0), 8, 16);
  const std::int64_t dim1 = make_divisible(64 * wm, 16);
  const std::int64_t dim2 = make_divisible(128 * wm), dim3 = make_divisible(256 * wm);
  const std::int64_t dim4 = make_divisible(384 * wm), dim5 = make_divisible(512 * wm);
  const auto attention_width = [&](std::size_t i) {
    return make_divisible(static_cast<double>(attention_dims[i]) * wm);
  };
  const std::int64_t dilation4 = output_stride == 8 ? 2 : 1;
  const std::int64_t dilation5 = dilation4 * (output_stride == 8 || output_stride == 16 ? 2 : 1);

  const Scope root = in.head == Head::Base ? Scope() : Scope("mobilevitv2");
  const Scope layer = root / "encoder" / "layer";
  Value x = b.input({channels, image, image}, "pixels");
  x = mobilevit::conv_layer(ctx, x, "Stem", root / "conv_stem", {.out = dim0, .kernel = 3, .stride = 2});
  x = mobilevit::inverted_residual(ctx, x, layer / 0 / "layer" / 0, dim1, 1);
  for (std::int64_t i = 0; i < 2; ++i)
    x = mobilevit::inverted_residual(ctx, x, layer / 1 / "layer" / i, dim2, i == 0 ? 2 : 1);
  x = vit_stage(ctx, x, layer / 2, {dim3, attention_width(0), blocks_per_stage[0], 1}, c);
  x = vit_stage(ctx, x, layer / 3, {dim4, attention_width(1), blocks_per_stage[1], dilation4}, c);
  x = vit_stage(ctx, x, layer / 4, {dim5, attention_width(2), blocks_per_stage[2], dilation5}, c);
  x = pool(b, x, "Pooler", false);
  if (in.head == Head::Base) return x;
  return classifier(b, Value{x.node, {dim5}}, "Classifier", Scope("classifier"), dim5, in.num_labels(), true);
}

}  // namespace
}  // namespace mobilevitv2_impl

const Family& mobilevitv2_family() {
  static const Family family{"mobilevitv2", "models/mobilevitv2/modeling_mobilevitv2.py",
                             classes("MobileViTV2", {heads::ForImageClassification}), mobilevitv2_impl::build};
  return family;
}

}  // namespace neurarch::families
