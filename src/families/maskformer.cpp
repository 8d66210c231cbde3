// MaskFormer (models/maskformer/modeling_maskformer.py, transformers 4.47.1 and 5.24): a Swin backbone (MaskFormer's
// Swin, maskformer_swin: MaskFormerSwinModel under pixel_level_module.encoder.model, every stage's output through
// its own hidden_states_norms LayerNorm); a pixel decoder: an FPN whose stem (3x3 conv, GroupNorm(32), ReLU) reads
// the deepest map and whose layers, finest last, add a projected lateral (1x1 conv, GroupNorm) to the nearest-
// upsampled map and run a 3x3 conv + GroupNorm + ReLU, then mask_projection (3x3 conv) to mask_feature_size; and a
// transformer module: the deepest map (1x1 input_projection when its width is not d_model) attended by DETR's
// decoder (decoder_config, detr_common) from num_queries learned queries. MaskFormerForInstanceSegmentation adds a
// class_predictor (num_labels + 1), a 3-layer mask_embedder whose outputs weigh the mask features, and the loss's
// persistent criterion.empty_weight buffer. Only Swin
// backbones are built.
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/group_norm.hpp"
#include "blocks/upsample.hpp"
#include "core/error.hpp"
#include "families/detr_common.hpp"
#include "families/swin_common.hpp"

namespace neurarch::families {
namespace maskformer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// MaskFormerSwinConfig as MaskFormerConfig builds it when no backbone_config is given.
nlohmann::json default_backbone() {
  return {{"model_type", "swin"}, {"image_size", 384}, {"in_channels", 3}, {"patch_size", 4}, {"embed_dim", 128},
          {"depths", {2, 2, 18, 2}}, {"num_heads", {4, 8, 16, 32}}, {"window_size", 12}, {"drop_path_rate", 0.3},
          {"out_features", {"stage1", "stage2", "stage3", "stage4"}}};
}

// Conv (bias-free) + GroupNorm(32), with the activation on the norm.
Value conv_group_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module, std::int64_t in,
                      std::int64_t out, std::int64_t kernel, const std::string& activation) {
  auto h = conv2d(b, x, name + "_Conv",
                  {.module = module / 0, .in = in, .out = out, .kernel = kernel, .padding = kernel / 2, .bias = false});
  return group_norm(b, h, name + "_GroupNorm", module / 1, 32, activation);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  if (const auto* v = c.raw({"backbone"}); v && !v->is_null())
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone'", c.origin()),
                "a named (timm or Hub) backbone is not built; give backbone_config");
  const Config bc = c.child("backbone_config", default_backbone());
  if (const std::string type = bc.text({"model_type"}, "swin"); type != "swin" && type != "maskformer-swin")
    throw Error(ErrorKind::Unsupported, fmt::format("{}: key 'backbone_config.model_type'", c.origin()),
                fmt::format("only Swin backbones are built, not '{}'", type));
  const Config dc = c.child("decoder_config");
  const std::int64_t fpn = c.dim({"fpn_feature_size"}, 256);
  const std::int64_t mask_features = c.dim({"mask_feature_size"}, 256);
  const bool instance = in.class_name.ends_with("ForInstanceSegmentation");
  const Scope model = instance ? Scope("model") : Scope();
  const Scope pixel_level = model / "pixel_level_module";

  // The backbone: MaskFormer's Swin (the configured window kept on small grids), each stage's output normed.
  std::vector<Value> stages;
  {
    graph::Nested nest(b, {.module = (pixel_level / "encoder" / "model").path(), .label = "", .first_block = 0});
    const BuildInput inner{.config = bc, .class_name = "MaskFormerSwinModel", .head = Head::Base,
                           .requested_seq = in.requested_seq, .requested_image_size = in.requested_image_size};
    swin::model(inner, b, {.shrink_window = false, .stage_maps = &stages});
  }
  std::vector<Value> features;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const Value& stage = stages[i];
    auto normed = norm(b, Value{stage.node, {stage.shape[1] * stage.shape[2], stage.shape[0]}},
                       fmt::format("Backbone_Stage_LayerNorm_{}", i),
                       {pixel_level / "encoder" / "hidden_states_norms" / static_cast<std::int64_t>(i)});
    features.push_back(Value{normed.node, stage.shape});
  }

  // FPN: the stem on the deepest map, then one layer per finer map.
  const Scope fpn_module = pixel_level / "decoder" / "fpn";
  Value out = conv_group_norm(b, features.back(), "FPN_Stem", fpn_module / "stem", features.back().shape[0], fpn, 3,
                              "relu");
  for (std::size_t k = 0; k + 1 < features.size(); ++k) {
    const Value& lateral = features[features.size() - 2 - k];
    const Scope layer = fpn_module / "layers" / static_cast<std::int64_t>(k);
    const std::string name = fmt::format("FPN_Layer_{}", k);
    auto projected = conv_group_norm(b, lateral, name + "_Proj", layer / "proj", lateral.shape[0], fpn, 1, "");
    auto up = resize(b, out, name + "_Upsample", lateral.shape[1], lateral.shape[2]);
    auto sum = add(b, projected, up, name + "_Add");
    out = conv_group_norm(b, sum, name + "_Block", layer / "block", fpn, fpn, 3, "relu");
  }
  auto mask_map = conv2d(b, out, "Mask_Projection",
                         {.module = pixel_level / "decoder" / "mask_projection", .in = fpn, .out = mask_features,
                          .kernel = 3, .padding = 1});

  // The transformer module over the deepest backbone map.
  const Scope transformer = model / "transformer_module";
  const std::int64_t d_model = dc.dim({"d_model"}, 256);
  const std::int64_t queries = dc.dim({"num_queries"}, 100);
  Value image = features.back();
  if (image.shape[0] != d_model)
    image = conv2d(b, image, "Input_Projection",
                   {.module = transformer / "input_projection", .in = image.shape[0], .out = d_model});
  const Value memory{image.node, {image.shape[1] * image.shape[2], d_model}};
  auto query_pos = b.node(NodeType::Embedding, "Queries_Embedder", {queries, d_model}, {memory},
                          transformer / "queries_embedder");
  b.parameter(query_pos, (transformer / "queries_embedder")("weight"), {queries, d_model}, graph::TensorRole::Embedding);
  auto x = detr::decoder(b, dc, query_pos, memory, transformer / "decoder");
  if (!instance) return x;

  auto logits = classifier(b, x, "Class_Predictor", Scope("class_predictor"), d_model, in.num_labels() + 1, true);
  // MaskFormerLoss lives on the model and registers its per-class weights (no_object_weight for the last class)
  // as a persistent buffer.
  b.buffer(logits, "criterion.empty_weight", {in.num_labels() + 1}, DType::F32);
  Value h = x;
  for (std::int64_t i = 0; i < 3; ++i)
    h = dense(b, h, fmt::format("Mask_Embedder_{}", i), Scope("mask_embedder") / i / 0, d_model,
              i == 2 ? mask_features : d_model, true, i == 2 ? "" : "relu");
  // einsum("bqc,bchw->bqhw"): every query's embedding weighs the mask features.
  return b.node(NodeType::Linear, "Mask_Logits", {queries, mask_map.shape[1], mask_map.shape[2]},
                {h, mask_map, logits});
}

}  // namespace
}  // namespace maskformer_impl

const Family& maskformer_family() {
  static const Family family{"maskformer", "models/maskformer/modeling_maskformer.py",
                             classes("MaskFormer", {{"ForInstanceSegmentation", Head::PreTraining}}), maskformer_impl::build};
  return family;
}

}  // namespace neurarch::families
