// VisionTextDualEncoderModel (models/vision_text_dual_encoder/modeling_vision_text_dual_encoder.py, transformers
// 4.47.1): any registered text model (AutoModel of text_config, under text_model) and vision model (vision_config;
// a CLIP config's vision half becomes CLIPVisionModel, under vision_model), each pooled output projected to
// projection_dim by a bias-free Linear (text_projection, visual_projection), compared CLIP-style with a learned
// logit_scale.
#include <utility>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace vision_text_dual_encoder_impl {
namespace {

using namespace blocks;

// The tower's pooled output ([width]): its base class's pooler output, or its first token when it has none.
Value tower(const BuildInput& in, GraphBuilder& b, const Config& c, std::string_view attribute, std::string_view role) {
  const std::string type = c.model_type();
  const Family* family = find_family(type);
  if (!family || family->classes.empty() || family->classes.front().head != Head::Base)
    throw Error(ErrorKind::Unsupported, c.origin() + ": key 'model_type'",
                fmt::format("the {} model '{}' is not a supported base model", role, type.empty() ? "(none)" : type));
  graph::Nested nest(b, {.module = std::string(attribute), .label = std::string(role == "text" ? "Text_" : "Vision_"),
                         .first_block = b.next_block()});
  const BuildInput sub{c, std::string(family->classes.front().name), Head::Base, in.requested_seq,
                       in.requested_image_size};
  Value out = family->build(sub, b);
  if (out.shape.size() == 1) return out;
  return b.node(graph::NodeType::Pooler, "First_Token", {out.shape.back()}, {out});
}

Config vision_config_of(const Config& c) {
  Config vision = c.child("vision_config");
  if (vision.model_type() != "clip") return vision;
  // The config class keeps only a CLIP config's vision half, which the model builds as CLIPVisionModel.
  const auto* half = vision.raw({"vision_config"});
  nlohmann::json object = half && half->is_object() ? *half : nlohmann::json::object();
  object["model_type"] = "clip_vision_model";
  return Config(std::move(object), vision.origin() + ": vision_config");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  if (!c.has("vision_config") || !c.has("text_config"))
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'vision_config'",
                "VisionTextDualEncoderConfig needs both a vision_config and a text_config");
  const Config vision = vision_config_of(c);
  const Config text = c.child("text_config");
  const std::int64_t projection = c.dim({"projection_dim"}, 512);

  const Value text_pooled = tower(in, b, text, "text_model", "text");
  const Value image_pooled = tower(in, b, vision, "vision_model", "vision");
  const Value text_embeds = dense(b, text_pooled, "Text_Projection", Scope("text_projection"),
                                  text_pooled.shape.back(), projection, false);
  const Value image_embeds = dense(b, image_pooled, "Visual_Projection", Scope("visual_projection"),
                                   image_pooled.shape.back(), projection, false);
  return clip::contrastive_logits(b, text_embeds, image_embeds, {}, false, "logit_scale");
}

}  // namespace
}  // namespace vision_text_dual_encoder_impl

const Family& vision_text_dual_encoder_family() {
  static const Family family{"vision-text-dual-encoder",
                             "models/vision_text_dual_encoder/modeling_vision_text_dual_encoder.py",
                             {{"VisionTextDualEncoderModel", Head::Base}},
                             vision_text_dual_encoder_impl::build};
  return family;
}

}  // namespace neurarch::families
