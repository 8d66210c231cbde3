// SwiftFormer (models/swiftformer/modeling_swiftformer.py, transformers 4.47.1 and 5.24): a two-conv stem (3x3
// stride 2 to embed_dims[0] / 2, BatchNorm, ReLU, again to embed_dims[0]) and stages of depths[i] blocks over
// [C, H, W] maps: ConvEncoders (3x3 depthwise conv, BatchNorm, 1x1 up to mlp_ratio x C, GELU, 1x1 down, times a
// layer_scale, added) and, last in each stage, an encoder block: a local representation (the same shape with a 1x1
// of width C), then efficient additive attention over the H x W tokens (to_query, to_key, L2-normalised; a learned
// w_g [C, 1] scores the queries into one global query that gates the keys; proj, plus the queries, final: linear in
// the tokens, no score matrix) and a BatchNorm + 1x1-conv MLP, each times layer_scale_1 / _2 (use_layer_scale).
// Between stages (downsamples[i] or a width change) a down_patch_size conv + BatchNorm. The classifier normalises
// (BatchNorm), averages and averages `head` and `dist_head`.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/config_lists.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace swiftformer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// layer_scale [C, 1, 1] times `x`.
Value scaled(GraphBuilder& b, const Value& x, const std::string& name, const std::string& tensor) {
  auto out = b.node(NodeType::LayerScale, name, x.shape, {x});
  b.parameter(out, tensor, {x.shape[0], 1, 1}, graph::TensorRole::Other);
  return out;
}

// SwiftFormerConvEncoder / SwiftFormerLocalRepresentation: the residual 3x3 depthwise -> BN -> 1x1 -> GELU -> 1x1.
Value conv_block(GraphBuilder& b, const Value& x, const std::string& name, const Scope& m, std::int64_t hidden) {
  const std::int64_t c = x.shape[0];
  auto h = conv2d(b, x, name + "_Depthwise",
                  {.module = m / "depth_wise_conv", .in = c, .out = c, .kernel = 3, .padding = 1, .groups = c});
  h = batch_norm(b, h, name + "_BatchNorm", m / "norm");
  h = conv2d(b, h, name + "_Pointwise1", {.module = m / "point_wise_conv1", .in = c, .out = hidden});
  b.at(h).activation = "gelu";
  h = conv2d(b, h, name + "_Pointwise2", {.module = m / "point_wise_conv2", .in = hidden, .out = c});
  return add(b, scaled(b, h, name + "_Scale", m("layer_scale")), x, name + "_Add");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const auto depths = size_list(c, "depths", {3, 3, 6, 4});
  const auto dims = size_list(c, "embed_dims", {48, 56, 112, 220});
  const auto downsamples = bool_list(c, "downsamples", {true, true, true, true});
  const std::int64_t ratio = c.dim({"mlp_ratio"}, 4);
  const std::string act = c.text({"hidden_act"}, "gelu");
  const std::int64_t down_patch = c.dim({"down_patch_size"}, 3);
  const std::int64_t down_stride = c.dim({"down_stride"}, 2);
  const std::int64_t down_pad = c.integer({"down_pad"}, 1);
  const bool layer_scale = c.flag({"use_layer_scale"}, true);
  require_length(c, "embed_dims", dims, depths.size());
  if (downsamples.size() + 1 < depths.size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'downsamples'", c.origin()),
                fmt::format("has {} entries for {} stages", downsamples.size(), depths.size()));
  const std::int64_t image = in.image_size(c.dim({"image_size"}, 224));
  const bool classification = in.head == Head::ImageClassification;
  const Scope root = classification ? Scope("swiftformer") : Scope();

  auto pixels = b.input({channels, image, image}, "pixels");
  const Scope stem = root / "patch_embed" / "patch_embedding";
  auto x = conv2d(b, pixels, "Stem_Conv1",
                  {.module = stem / 0, .in = channels, .out = dims[0] / 2, .kernel = 3, .stride = 2, .padding = 1});
  x = batch_norm(b, x, "Stem_BatchNorm1", stem / 1, "relu");
  x = conv2d(b, x, "Stem_Conv2", {.module = stem / 3, .in = dims[0] / 2, .out = dims[0], .kernel = 3, .stride = 2,
                                  .padding = 1});
  x = batch_norm(b, x, "Stem_BatchNorm2", stem / 4, "relu");

  std::int64_t entry = 0;  // index in encoder.network: stages and the embeddings between them
  for (std::size_t s = 0; s < depths.size(); ++s, ++entry) {
    const Scope stage = root / "encoder" / "network" / entry / "blocks";
    const std::int64_t dim = dims[s];
    for (std::int64_t j = 0; j < depths[s]; ++j) {
      b.set_block(b.next_block());
      const Scope block = stage / j;
      const std::string name = fmt::format("Stage_{}_Block_{}", s, j);
      if (j + 1 < depths[s]) {
        x = conv_block(b, x, name, block, ratio * dim);
        continue;
      }
      x = conv_block(b, x, name + "_Local", block / "local_representation", dim);
      // Efficient additive attention over the tokens of the map.
      const Scope attn = block / "attn";
      const Value tokens{x.node, {x.shape[1] * x.shape[2], dim}};
      auto query = dense(b, tokens, name + "_Query", attn / "to_query", dim, dim, true);
      auto key = dense(b, tokens, name + "_Key", attn / "to_key", dim, dim, true);
      auto global = b.node(NodeType::Linear, name + "_Global_Query", {1, dim}, {query}, attn);
      b.parameter(global, attn("w_g"), {dim, 1}, graph::TensorRole::Other);
      auto gated = b.node(NodeType::Add, name + "_Gate", key.shape, {key, global});
      auto out = dense(b, gated, name + "_Proj", attn / "proj", dim, dim, true);
      out = add(b, out, query, name + "_Query_Add");
      out = dense(b, out, name + "_Final", attn / "final", dim, dim, true);
      Value res{out.node, x.shape};
      if (layer_scale) res = scaled(b, res, name + "_Scale1", block("layer_scale_1"));
      x = add(b, x, res, name + "_Attention_Add");
      const Scope mlp = block / "linear";
      auto h = batch_norm(b, x, name + "_MLP_BatchNorm", mlp / "norm1");
      h = conv2d(b, h, name + "_MLP_FC1", {.module = mlp / "fc1", .in = dim, .out = ratio * dim});
      b.at(h).activation = act;
      h = conv2d(b, h, name + "_MLP_FC2", {.module = mlp / "fc2", .in = ratio * dim, .out = dim});
      if (layer_scale) h = scaled(b, h, name + "_Scale2", block("layer_scale_2"));
      x = add(b, x, h, name + "_MLP_Add");
    }
    if (s + 1 < depths.size() && (downsamples[s] || dims[s] != dims[s + 1])) {
      ++entry;
      const Scope down = root / "encoder" / "network" / entry;
      x = conv2d(b, x, fmt::format("Downsample_{}", s),
                 {.module = down / "proj", .in = dims[s], .out = dims[s + 1], .kernel = down_patch,
                  .stride = down_stride, .padding = down_pad});
      x = batch_norm(b, x, fmt::format("Downsample_BatchNorm_{}", s), down / "norm");
    }
  }
  b.set_block(-1);
  if (!classification) return x;
  x = batch_norm(b, x, "Final_BatchNorm", Scope("norm"));
  auto pooled = pool(b, x, "Pooler", false);
  const Value features{pooled.node, {dims.back()}};
  auto logits = classifier(b, features, "Classifier", Scope("head"), dims.back(), in.num_labels(), true);
  auto distilled = classifier(b, features, "Distillation_Classifier", Scope("dist_head"), dims.back(),
                              in.num_labels(), true);
  return b.node(NodeType::Add, "Logits", logits.shape, {logits, distilled});
}

}  // namespace
}  // namespace swiftformer_impl

const Family& swiftformer_family() {
  static const Family family{"swiftformer", "models/swiftformer/modeling_swiftformer.py",
                             classes("SwiftFormer", {heads::ForImageClassification}), swiftformer_impl::build};
  return family;
}

}  // namespace neurarch::families
