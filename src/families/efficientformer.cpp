// EfficientFormer (models/deprecated/efficientformer/modeling_efficientformer.py, transformers 4.47.1; transformers
// 5 removed it): a two-conv stem (3x3 stride 2 to hidden_sizes[0] / 2, BatchNorm, ReLU, again to hidden_sizes[0]);
// "Meta4D" blocks over [C, H, W] maps (token mixer: pool_size average pooling minus its input; a 1x1-conv MLP with
// BatchNorms; each branch times a [C] layer scale when use_layer_scale), a down_patch conv + BatchNorm between
// stages (downsamples[i] or a width change); the last stage ends in num_meta3d_blocks "Meta3D" blocks over the
// flattened tokens: LayerNorm, attention with a fused qkv (key_dim for q and k, attention_ratio x key_dim for v per
// head, over config.dim) and a learned attention_biases table indexed by a saved int64 attention_bias_idxs
// [resolution^2, resolution^2] buffer (so the map must be resolution x resolution), LayerNorm and a Linear MLP.
// The model ends in `layernorm`; the classifier reads the token mean. The distillation-teacher class is not built.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace efficientformer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Settings {
  std::int64_t ratio, pool_size;
  std::string activation;
  bool layer_scale;
};

// A [C] layer scale times `x` (a map's channels or the tokens' features).
Value scaled(GraphBuilder& b, const Value& x, const std::string& name, const std::string& tensor, std::int64_t c) {
  auto out = b.node(NodeType::LayerScale, name, x.shape, {x});
  b.parameter(out, tensor, {c}, graph::TensorRole::Other);
  return out;
}

Value meta4d(GraphBuilder& b, const Value& x, const std::string& name, const Scope& block, const Settings& s) {
  const std::int64_t c = x.shape[0];
  // AvgPool2d(pool_size, stride 1, padding pool_size / 2, count_include_pad=False) - x.
  auto mixed = b.node(NodeType::Pool, name + "_Token_Mixer", x.shape, {x});
  b.at(mixed).spatial = graph::SpatialAttrs{s.pool_size, s.pool_size, 1, s.pool_size / 2, 1, false};
  Value h = s.layer_scale ? scaled(b, mixed, name + "_Scale1", block("layer_scale_1"), c) : mixed;
  auto sum = add(b, h, x, name + "_Add1");
  const Scope mlp = block / "mlp";
  h = conv2d(b, sum, name + "_MLP_Conv1", {.module = mlp / "convolution1", .in = c, .out = s.ratio * c});
  h = batch_norm(b, h, name + "_MLP_BatchNorm1", mlp / "batchnorm_before", s.activation);
  h = conv2d(b, h, name + "_MLP_Conv2", {.module = mlp / "convolution2", .in = s.ratio * c, .out = c});
  h = batch_norm(b, h, name + "_MLP_BatchNorm2", mlp / "batchnorm_after");
  if (s.layer_scale) h = scaled(b, h, name + "_Scale2", block("layer_scale_2"), c);
  return add(b, h, sum, name + "_Add2");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const auto depths = size_list(c, "depths", {3, 2, 6, 4});
  const auto hidden = size_list(c, "hidden_sizes", {48, 96, 224, 448});
  const auto downsamples = bool_list(c, "downsamples", {true, true, true, true});
  const Settings s{.ratio = c.dim({"mlp_expansion_ratio"}, 4),
                   .pool_size = c.dim({"pool_size"}, 3),
                   .activation = c.text({"hidden_act"}, "gelu"),
                   .layer_scale = c.flag({"use_layer_scale"}, true)};
  const std::int64_t dim = c.dim({"dim"}, 448);
  const std::int64_t key_dim = c.dim({"key_dim"}, 32);
  const std::int64_t heads = c.dim({"num_attention_heads"}, 8);
  const std::int64_t attention_ratio = c.dim({"attention_ratio"}, 4);
  const std::int64_t resolution = c.dim({"resolution"}, 7);
  const std::int64_t meta3d = c.integer({"num_meta3d_blocks"}, 1);
  const std::int64_t down_patch = c.dim({"downsample_patch_size"}, 3);
  const std::int64_t down_stride = c.dim({"downsample_stride"}, 2);
  const std::int64_t down_pad = c.integer({"downsample_pad"}, 1);
  const double dropout = c.number({"hidden_dropout_prob"}, 0.0);
  require_length(c, "hidden_sizes", hidden, depths.size());
  if (downsamples.size() + 1 < depths.size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'downsamples'", c.origin()),
                fmt::format("has {} entries for {} stages", downsamples.size(), depths.size()));
  if (meta3d > depths.back())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'num_meta3d_blocks'", c.origin()),
                fmt::format("{} exceeds the last stage's {} blocks", meta3d, depths.back()));
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));
  const bool classification = in.head == Head::ImageClassification;
  const Scope root = classification ? Scope("efficientformer") : Scope();

  auto pixels = b.input({channels, image, image}, "pixels");
  const Scope stem = root / "patch_embed";
  auto x = conv2d(b, pixels, "Stem_Conv1",
                  {.module = stem / "convolution1", .in = channels, .out = hidden[0] / 2, .kernel = 3, .stride = 2,
                   .padding = 1});
  x = batch_norm(b, x, "Stem_BatchNorm1", stem / "batchnorm_before", "relu");
  x = conv2d(b, x, "Stem_Conv2", {.module = stem / "convolution2", .in = hidden[0] / 2, .out = hidden[0], .kernel = 3,
                                  .stride = 2, .padding = 1});
  x = batch_norm(b, x, "Stem_BatchNorm2", stem / "batchnorm_after", "relu");

  const std::size_t last = depths.size() - 1;
  std::int64_t entry = 0;  // index in encoder.intermediate_stages: stages and the embeddings between them
  for (std::size_t i = 0; i < last; ++i, ++entry) {
    const Scope stage = root / "encoder" / "intermediate_stages" / entry / "meta4D_layers" / "blocks";
    for (std::int64_t j = 0; j < depths[i]; ++j) {
      b.set_block(b.next_block());
      x = meta4d(b, x, fmt::format("Stage_{}_Block_{}", i, j), stage / j, s);
    }
    if (downsamples[i] || hidden[i] != hidden[i + 1]) {
      ++entry;
      const Scope down = root / "encoder" / "intermediate_stages" / entry;
      x = conv2d(b, x, fmt::format("Downsample_{}", i),
                 {.module = down / "projection", .in = hidden[i], .out = hidden[i + 1], .kernel = down_patch,
                  .stride = down_stride, .padding = down_pad});
      x = batch_norm(b, x, fmt::format("Downsample_BatchNorm_{}", i), down / "norm");
    }
  }
  const Scope last_stage = root / "encoder" / "last_stage";
  for (std::int64_t j = 0; j < depths.back() - meta3d; ++j) {
    b.set_block(b.next_block());
    x = meta4d(b, x, fmt::format("Stage_{}_Block_{}", last, j), last_stage / "meta4D_layers" / "blocks" / j, s);
  }

  const std::int64_t width = hidden.back();
  const std::int64_t tokens = x.shape[1] * x.shape[2];
  Value t{x.node, {tokens, width}};  // flatten(2).transpose(1, 2): a view
  const std::int64_t value_dim = attention_ratio * key_dim;
  for (std::int64_t j = 0; j < meta3d; ++j) {
    b.set_block(b.next_block());
    const Scope block = last_stage / "meta3D_layers" / "blocks" / j;
    const Scope mixer = block / "token_mixer";
    const std::string name = fmt::format("Meta3D_{}", j);
    auto h = norm(b, t, name + "_LayerNorm1", {block / "layernorm1"});
    auto qkv = dense(b, h, name + "_QKV", mixer / "qkv", dim, heads * (2 * key_dim + value_dim), true);
    auto attn = b.node(NodeType::MultiHeadAttention, name + "_Attention", {tokens, heads * value_dim}, {qkv}, mixer);
    b.at(attn).attention = graph::AttentionAttrs{heads, heads, key_dim, tokens, tokens};
    b.at(attn).attention->sdpa = false;
    b.parameter(attn, mixer("attention_biases"), {heads, resolution * resolution}, graph::TensorRole::Other);
    b.buffer(attn, mixer("attention_bias_idxs"), {resolution * resolution, resolution * resolution}, DType::I64);
    if (tokens != resolution * resolution)
      b.fail(attn, fmt::format("the bias table covers a {}x{} map; the last stage's map has {} tokens", resolution,
                               resolution, tokens));
    if (dim != width)
      b.fail(attn, fmt::format("the attention is built over dim {}, the last stage is {} wide", dim, width));
    h = dense(b, attn, name + "_Projection", mixer / "projection", heads * value_dim, dim, true);
    if (s.layer_scale) h = scaled(b, h, name + "_Scale1", block("layer_scale_1"), width);
    t = add(b, h, t, name + "_Add1");
    h = norm(b, t, name + "_LayerNorm2", {block / "layernorm2"});
    h = feed_forward(b, h, name + "_MLP",
                     {.hidden = width, .intermediate = s.ratio * width, .activation = s.activation,
                      .module = block / "mlp", .up = block / "mlp" / "linear_in", .down = block / "mlp" / "linear_out",
                      .output_dropout = dropout, .inner_dropout = dropout});
    if (s.layer_scale) h = scaled(b, h, name + "_Scale2", block("layer_scale_2"), width);
    t = add(b, h, t, name + "_Add2");
  }
  b.set_block(-1);
  t = norm(b, t, "Final_LayerNorm", {root / "layernorm"});
  if (!classification) return t;
  return classifier(b, Value{t.node, {width}}, "Classifier", Scope("classifier"), width, in.num_labels(), true);
}

}  // namespace
}  // namespace efficientformer_impl

const Family& efficientformer_family() {
  static const Family family{"efficientformer", "models/deprecated/efficientformer/modeling_efficientformer.py",
                             classes("EfficientFormer", {heads::ForImageClassification}), efficientformer_impl::build};
  return family;
}

}  // namespace neurarch::families
