#include "families/owlvit_common.hpp"

#include <fmt/format.h>

namespace neurarch::families::owlvit {

using namespace blocks;
using graph::NodeType;

namespace owlvit_common_impl {
namespace {

// OwlViTBoxPredictionHead: dense0 -> GELU -> dense1 -> GELU -> dense2 (out wide).
Value box_head(GraphBuilder& b, const Value& x, const std::string& label, const Scope& head, std::int64_t width,
               std::int64_t out) {
  auto h = dense(b, x, label + "_Dense0", head / "dense0", width, width, true, "gelu");
  h = dense(b, h, label + "_Dense1", head / "dense1", width, width, true, "gelu");
  return dense(b, h, label + "_Dense2", head / "dense2", width, out, true);
}

}  // namespace
}  // namespace owlvit_common_impl
using namespace owlvit_common_impl;

Value detector(const BuildInput& in, GraphBuilder& b, const clip::ClipDefaults& defaults, bool objectness) {
  const Config& c = in.config;
  const Config text_config = c.child("text_config");
  const Config vision_config = c.child("vision_config");
  const std::int64_t projection = c.dim({"projection_dim"}, 512);
  const Scope model("owlvit");
  Value query, sequence;
  std::int64_t text_hidden = 0, width = 0;
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    auto t = clip::text_tower(in, b, text_config, clip::Variant::Clip, model / "text_model", defaults);
    text_hidden = t.hidden;
    query = b.node(NodeType::Pooler, "Projection", {projection}, {t.sequence}, model / "text_projection");
    linear_tensors(b, query, model / "text_projection", t.hidden, projection, false);
  }
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = b.next_block()});
    auto v = clip::vision_tower(in, b, vision_config, clip::Variant::Clip, model / "vision_model", 1, defaults);
    width = v.hidden;
    sequence = v.sequence;
    auto image = dense(b, v.pooled, "Projection", model / "visual_projection", v.hidden, projection, false);
    // OwlViTModel's forward still computes the image-text logits.
    clip::contrastive_logits(b, query, image, {}, false, "owlvit.logit_scale");
  }
  // post_layernorm again, on every token: its weights belong to the pooled-token norm above.
  auto normed = b.node(NodeType::LayerNorm, "Detection_Post_LayerNorm", sequence.shape, {sequence},
                       model / "vision_model" / "post_layernorm");
  // Patch tokens times the class token (an elementwise product), then layer_norm.
  const std::int64_t patches = sequence.shape.size() >= 2 ? sequence.shape[sequence.shape.size() - 2] - 1 : 0;
  auto features = norm(b, Value{normed.node, {patches, width}}, "Detection_LayerNorm", {Scope("layer_norm")});

  const Scope cls("class_head");
  auto class_embeds = dense(b, features, "Class_Head_Dense0", cls / "dense0", width, text_hidden, true);
  dense(b, features, "Class_Head_Logit_Shift", cls / "logit_shift", width, 1, true);
  dense(b, features, "Class_Head_Logit_Scale", cls / "logit_scale", width, 1, true, "elu");
  // One logit per patch and text query (one query per sample here).
  auto logits = b.node(NodeType::ContrastiveLogits, "Class_Logits", {patches, 1}, {class_embeds, query});
  if (text_hidden != projection)
    b.fail(logits, fmt::format("class_head compares {}-wide patch embeddings (text_config.hidden_size) with {}-wide "
                               "projected queries (projection_dim)",
                               text_hidden, projection));
  owlvit_common_impl::box_head(b, features, "Box_Head", Scope("box_head"), width, 4);
  if (objectness) owlvit_common_impl::box_head(b, features, "Objectness_Head", Scope("objectness_head"), width, 1);
  return logits;
}

}  // namespace neurarch::families::owlvit
