// FLAVA (models/flava/modeling_flava.py + configuration_flava.py, transformers 4.47.1; 5.24 checked): three ViT
// encoders (vit::vit_layers: pre-norm layers under ViT's module names, then `layernorm` and a tanh `pooler`).
// `image_model` (image_config): ViT's patch embeddings, cls_token, mask_token (image_config.mask_token, default
// true; used only by masked image modelling) and a [1, patches + 1, hidden] position table. `text_model`
// (text_config): BERT's embeddings (word, position, token type, LayerNorm). `multimodal_model` (multimodal_config):
// no embeddings of its own, a cls_token (use_cls_token) before the image and text states, each projected by
// image_to_mm_projection / text_to_mm_projection. FlavaModel also owns image_projection and text_projection (on
// each tower's first token) and the scalar logit_scale. --seq is the text length.
#include <fmt/format.h>

#include "families/flava_common.hpp"
#include "families/vit_common.hpp"

namespace neurarch::families {
namespace flava_impl {
namespace {

using namespace blocks;
using flava::Tower;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config image_config = c.child("image_config");
  const Config text_config = c.child("text_config");
  const Config mm_config = c.child("multimodal_config");
  const std::int64_t projection = c.dim({"projection_dim"}, 768);

  Tower image, text;
  {
    graph::Nested nest(b, {.module = "", .label = "Image_", .first_block = 0});
    image = flava::image_model(in, b, image_config, Scope("image_model"));
  }
  const std::int64_t image_layers = image_config.dim({"num_hidden_layers"}, 12);
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    text = flava::text_model(in, b, text_config, Scope("text_model"), image_layers);
  }
  const std::int64_t text_layers = text_config.dim({"num_hidden_layers"}, 12);
  auto image_embeds = dense(b, vit::first_token(image.states), "Image_Projection", Scope("image_projection"),
                            image.hidden, projection, true);
  b.parameter(image_embeds, "logit_scale", {}, graph::TensorRole::Other);
  dense(b, vit::first_token(text.states), "Text_Projection", Scope("text_projection"), text.hidden, projection, true);

  const std::int64_t mm_hidden = mm_config.dim({"hidden_size"}, 768);
  auto image_mm = dense(b, image.states, "Image_To_MM_Projection", Scope("image_to_mm_projection"), image.hidden,
                        mm_hidden, true);
  auto text_mm = dense(b, text.states, "Text_To_MM_Projection", Scope("text_to_mm_projection"), text.hidden,
                       mm_hidden, true);
  const Scope mm("multimodal_model");
  const bool cls = mm_config.flag({"use_cls_token"}, true);
  const std::int64_t tokens = (cls ? 1 : 0) + image_mm.shape.front() + text_mm.shape.front();
  auto joined = b.node(graph::NodeType::Add, "MM_Join", {tokens, mm_hidden}, {image_mm, text_mm}, mm);
  if (cls) b.parameter(joined, mm("cls_token"), {1, 1, mm_hidden}, graph::TensorRole::Other);
  graph::Nested nest(b, {.module = "", .label = "MM_", .first_block = 0});
  return flava::encode(b, joined, mm_config, mm, image_layers + text_layers).states;
}

}  // namespace
}  // namespace flava_impl

const Family& flava_family() {
  static const Family family{"flava", "models/flava/modeling_flava.py", {{"FlavaModel", Head::Base}}, flava_impl::build};
  return family;
}

}  // namespace neurarch::families
