// Depth Anything (models/depth_anything/modeling_depth_anything.py, transformers 4.47.1): a DINOv2 backbone
// (backbone_config; Dinov2Backbone under `backbone`: the chosen stages' hidden states, each through the shared
// final LayerNorm when apply_layernorm) feeds DPT's neck without a readout (the CLS token is dropped), whose
// fusion layers upsample to the next map's size; the head is conv3x3 (halving) -> bilinear resize to the
// image -> conv3x3 -> ReLU -> 1x1 conv -> ReLU (relative) or sigmoid (metric), times max_depth. Only DINOv2
// backbones are built.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/backbone_stages.hpp"
#include "families/clip_common.hpp"
#include "families/config_lists.hpp"
#include "families/depth_anything.hpp"
#include "families/family.hpp"
#include "families/shared_parameters.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {

using namespace blocks;
using graph::NodeType;

Value depth_anything::depth_estimator(const BuildInput& in, GraphBuilder& b, const FusionExtra& fusion_extra) {
  const Config& c = in.config;
  if (const auto* v = c.raw({"backbone"}); v && !v->is_null())
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone'", c.origin()),
                "a named (timm or Hub) backbone is not built; give backbone_config");
  const auto* raw_backbone = c.raw({"backbone_config"});
  const bool defaulted = !raw_backbone || raw_backbone->is_null();
  const Config bc = c.child("backbone_config");
  if (const std::string type = bc.text({"model_type"}, "dinov2"); type != "dinov2")
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone_config.model_type'", c.origin()),
                fmt::format("only DINOv2 backbones are built, not '{}'", type));

  // Dinov2Config's defaults, or DepthAnythingConfig's small DINOv2 when no backbone_config is given.
  const std::int64_t hidden = bc.dim({"hidden_size"}, defaulted ? 384 : 768);
  vit::EncoderSpec enc;
  const Scope root("backbone");
  enc.layers = root / "encoder" / "layer";
  enc.hidden = hidden;
  enc.count = bc.dim({"num_hidden_layers"}, 12);
  enc.heads = bc.dim({"num_attention_heads"}, defaulted ? 6 : 12);
  enc.activation = bc.text({"hidden_act"}, "gelu");
  enc.qkv_bias = bc.flag({"qkv_bias"}, true);
  enc.swiglu = bc.flag({"use_swiglu_ffn"}, false);
  enc.intermediate = hidden * bc.dim({"mlp_ratio"}, 4);
  if (enc.swiglu) enc.intermediate = (enc.intermediate * 2 / 3 + 7) / 8 * 8;
  const std::int64_t channels = bc.dim({"num_channels"}, 3);
  const std::int64_t backbone_patch = bc.dim({"patch_size"}, 14);
  const std::int64_t configured = bc.dim({"image_size"}, defaulted ? 518 : 224);
  const bool apply_layernorm = bc.flag({"apply_layernorm"}, true);
  const std::int64_t image = in.image_size(configured);
  // DepthAnythingConfig's own Dinov2Config returns stages 9-12; Dinov2Config alone the last one.
  const auto stages = defaulted ? std::vector<std::int64_t>{9, 10, 11, 12} : backbone_stages(bc, enc.count, {enc.count});

  const Scope emb = root / "embeddings";
  Value x = b.input({channels, image, image}, "pixels");
  x = patch_embed(b, x, "Patch_Embed", {emb / "patch_embeddings" / "projection", channels, hidden, backbone_patch, 1});
  b.parameter(x, emb("cls_token"), {1, 1, hidden}, graph::TensorRole::Other);
  b.parameter(x, emb("mask_token"), {1, hidden}, graph::TensorRole::Other);
  // Interpolated to the input's grid: any size runs.
  x = vit::position_table(b, x, emb, (configured / backbone_patch) * (configured / backbone_patch) + 1, x.shape);

  SharedParameters shared(b);
  std::vector<Value> features;
  const auto tap = [&](const Value& v, std::int64_t stage) {
    if (!std::binary_search(stages.begin(), stages.end(), stage)) return;
    features.push_back(apply_layernorm ? shared.layer_norm(v, fmt::format("Backbone_LayerNorm_{}", stage), root / "layernorm")
                                       : v);
  };
  tap(x, 0);
  for (std::int64_t i = 0; i < enc.count; ++i) {
    x = vit::dinov2_layer(b, x, enc, i, i);
    tap(x, i + 1);
  }
  // The LayerNorm exists even when no stage is normalised.
  if (!apply_layernorm) shared.layer_norm(x, "Backbone_LayerNorm", root / "layernorm");

  const std::int64_t patch = c.dim({"patch_size"}, 14);
  dpt::NeckSpec neck;
  neck.neck = Scope("neck");
  neck.token_width = c.dim({"reassemble_hidden_size"}, 384);
  neck.grid_h = image / patch;
  neck.grid_w = image / patch;
  neck.neck_hidden = size_list(c, "neck_hidden_sizes", {48, 96, 192, 384});
  neck.factors = dpt::factor_list(c, "reassemble_factors", {4, 2, 1, 0.5});
  neck.fusion = c.dim({"fusion_hidden_size"}, 64);
  neck.readout = dpt::Readout::Ignore;
  neck.upsample_to_next = true;
  neck.fusion_extra = fusion_extra;
  if (neck.factors.size() != neck.neck_hidden.size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'reassemble_factors'", c.origin()),
                fmt::format("has {} entries for {} neck_hidden_sizes", neck.factors.size(), neck.neck_hidden.size()));
  if (features.size() != neck.neck_hidden.size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'backbone_config.out_indices'", c.origin()),
                fmt::format("the backbone returns {} feature maps for {} neck_hidden_sizes", features.size(),
                            neck.neck_hidden.size()));
  const auto fused = dpt::neck(b, features, neck);

  const std::string type = c.text({"depth_estimation_type"}, "relative");
  if (type != "relative" && type != "metric")
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'depth_estimation_type'", c.origin()),
                fmt::format("'{}' is neither relative nor metric", type));
  const std::int64_t fusion = neck.fusion, head_hidden = c.dim({"head_hidden_size"}, 32);
  const Scope head("head");
  Value h = fused[dpt::python_index(c, "head_in_index", c.integer({"head_in_index"}, -1), fused.size())];
  h = conv2d(b, h, "Head_Conv1", {.module = head / "conv1", .in = fusion, .out = fusion / 2, .kernel = 3, .padding = 1});
  h = resize(b, h, "Head_Resize", neck.grid_h * patch, neck.grid_w * patch);
  h = conv2d(b, h, "Head_Conv2",
             {.module = head / "conv2", .in = fusion / 2, .out = head_hidden, .kernel = 3, .padding = 1});
  b.at(h).activation = "relu";
  h = conv2d(b, h, "Head_Conv3", {.module = head / "conv3", .in = head_hidden, .out = 1, .kernel = 1});
  b.at(h).activation = type == "metric" ? "sigmoid" : "relu";
  return Value{h.node, {h.shape[1], h.shape[2]}};  // predicted_depth: the channel squeezed away
}

namespace depth_anything_impl {
namespace {
Value build(const BuildInput& in, GraphBuilder& b) { return depth_anything::depth_estimator(in, b); }
}  // namespace
}  // namespace depth_anything_impl

const Family& depth_anything_family() {
  static const Family family{"depth_anything", "models/depth_anything/modeling_depth_anything.py",
                             {{"DepthAnythingForDepthEstimation", Head::PreTraining}}, depth_anything_impl::build};
  return family;
}

}  // namespace neurarch::families
