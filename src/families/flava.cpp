// FLAVA (models/flava/modeling_flava.py + configuration_flava.py, transformers 4.47.1; 5.24 checked): three ViT
// encoders (vit::vit_layers: pre-norm layers under ViT's module names, then `layernorm` and a tanh `pooler`).
// `image_model` (image_config): ViT's patch embeddings, cls_token, mask_token (image_config.mask_token, default
// true; used only by masked image modelling) and a [1, patches + 1, hidden] position table. `text_model`
// (text_config): BERT's embeddings (word, position, token type, LayerNorm). `multimodal_model` (multimodal_config):
// no embeddings of its own, a cls_token (use_cls_token) before the image and text states, each projected by
// image_to_mm_projection / text_to_mm_projection. FlavaModel also owns image_projection and text_projection (on
// each tower's first token) and the scalar logit_scale. --seq is the text length.
#include <fmt/format.h>

#include "families/vit_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

struct Tower {
  Value states;  ///< every token, after layernorm
  std::int64_t hidden = 0;
};

// An encoder, its layernorm and pooler under `root`.
Tower encode(GraphBuilder& b, const Value& x, const Config& c, const Scope& root, std::int64_t first_block) {
  vit::EncoderSpec enc = vit::read_encoder(c);
  enc.layers = root / "encoder" / "layer";
  enc.first_block = first_block;
  Tower t{norm(b, vit::vit_layers(b, x, enc), "Final_LayerNorm", {root / "layernorm"}), enc.hidden};
  pooler(b, t.states, "Pooler", root / "pooler" / "dense", t.hidden);
  return t;
}

Tower image_model(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root) {
  const BuildInput sub{c, in.class_name, Head::Base, in.requested_seq, in.requested_image_size};
  const vit::Geometry g = vit::read_geometry(sub, {224, 224, false}, 16);
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const Scope emb = root / "embeddings";
  auto x = vit::pixel_stem(b, g, emb / "patch_embeddings" / "projection", hidden, 1);
  vit::refuse_other_sizes(b, x, g, "FLAVA");
  b.parameter(x, emb("cls_token"), {1, 1, hidden});
  if (c.flag({"mask_token"}, true)) b.parameter(x, emb("mask_token"), {1, 1, hidden});
  x = vit::position_table(b, x, emb, g.configured_patches() + 1, x.shape);
  b.at(x).dropout = c.number({"hidden_dropout_prob"}, 0.0);
  return encode(b, x, c, root, 0);
}

Tower text_model(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, std::int64_t first_block) {
  const std::int64_t hidden = c.dim({"hidden_size"}, 768);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const Scope emb = root / "embeddings";
  auto ids = b.input({in.sequence_length(positions)}, "tokens");
  auto x = token_embedding(b, ids, "Word_Embedding", emb / "word_embeddings", c.dim({"vocab_size"}, 30522), hidden);
  x = learned_positions(b, x, "Position_Embedding", emb / "position_embeddings", positions, hidden);
  x = added_embedding(b, x, "Token_Type_Embedding", emb / "token_type_embeddings", c.dim({"type_vocab_size"}, 2),
                      hidden);
  x = norm(b, x, "Embedding_LayerNorm", {emb / "LayerNorm"});
  b.at(x).dropout = c.number({"hidden_dropout_prob"}, 0.0);
  return encode(b, x, c, root, first_block);
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config image_config = c.child("image_config");
  const Config text_config = c.child("text_config");
  const Config mm_config = c.child("multimodal_config");
  const std::int64_t projection = c.dim({"projection_dim"}, 768);

  Tower image, text;
  {
    graph::Nested nest(b, {.module = "", .label = "Image_", .first_block = 0});
    image = image_model(in, b, image_config, Scope("image_model"));
  }
  const std::int64_t image_layers = image_config.dim({"num_hidden_layers"}, 12);
  {
    graph::Nested nest(b, {.module = "", .label = "Text_", .first_block = 0});
    text = text_model(in, b, text_config, Scope("text_model"), image_layers);
  }
  const std::int64_t text_layers = text_config.dim({"num_hidden_layers"}, 12);
  auto image_embeds = dense(b, vit::first_token(image.states), "Image_Projection", Scope("image_projection"),
                            image.hidden, projection, true);
  b.parameter(image_embeds, "logit_scale", {});
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
  if (cls) b.parameter(joined, mm("cls_token"), {1, 1, mm_hidden});
  graph::Nested nest(b, {.module = "", .label = "MM_", .first_block = 0});
  return encode(b, joined, mm_config, mm, image_layers + text_layers).states;
}

}  // namespace

const Family& flava_family() {
  static const Family family{"flava", "models/flava/modeling_flava.py", {{"FlavaModel", Head::Base}}, build};
  return family;
}

}  // namespace neurarch::families
