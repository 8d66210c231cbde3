// Kosmos-2.5 (models/kosmos2_5/modeling_kosmos2_5.py + configuration_kosmos2_5.py, transformers 4.57.6; 5.24
// checked): Kosmos-2 with Pix2Struct's vision encoder. `vision_model` is Pix2StructVisionModel under
// Kosmos2_5VisionConfig's keys (head_dim, intermediate_size, max_num_patches rows in the row/column tables);
// its last state, L2-normalised (no tensor), goes through Kosmos-2's image_to_text_projection with 2048 latent
// queries. The text model is Kosmos-2's decoder without the attention's inner_attn_ln, plus `segment_emb`
// ([2, embed_dim]: image position or not) added to the sinusoidal positions. Unlike Kosmos-2 (4.47), every
// attention has an SDPA path.
#include "blocks/seq2seq.hpp"
#include "families/kosmos_2.hpp"
#include "families/multimodal_common.hpp"
#include "families/pix2struct.hpp"

namespace neurarch::families {
namespace kosmos_2_5_impl {
namespace {

using namespace blocks;

// Kosmos2_5VisionConfig: Pix2Struct's encoder under other keys and defaults.
pix2struct::VisionEncoder vision_encoder(const Config& c) {
  pix2struct::VisionEncoder e;
  e.root = Scope("vision_model");
  e.hidden = c.dim({"hidden_size"}, 1536);
  e.d_kv = c.dim({"head_dim"}, 64);
  e.d_ff = c.dim({"intermediate_size"}, 3968);
  e.layers = c.dim({"num_hidden_layers"}, 18);
  e.heads = c.dim({"num_attention_heads"}, 24);
  e.activation = c.text({"dense_act_fn"}, "gelu_new");
  e.dropout = c.number({"dropout_rate"}, 0.0);
  e.attention_dropout = c.number({"attention_dropout"}, 0.0);
  e.patch_width = c.dim({"patch_embed_hidden_size"}, 768);
  e.positions = c.dim({"max_num_patches"}, 4096);
  e.patches = 4096;  // Kosmos2_5ImageProcessor's max_patches
  e.sdpa = true;
  return e;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = c.child("text_config");
  const kosmos2::TextDefaults defaults{.vocab = 108481, .hidden = 1536, .layers = 24, .heads = 16,
                                       .intermediate = 6144, .positions = 4096, .attention_dropout = 0.0,
                                       .latent_queries = 2048, .attention_sub_norm = false, .sdpa = true};
  const decoder::DecoderSpec spec = kosmos2::text_spec(text_config, defaults);

  Value image;
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = 0});
    image = pix2struct::vision_encoder(in, b, vision_encoder(vision_config));
  }
  const Value features = kosmos2::image_to_text(b, image, c, text_config, spec.hidden, defaults);

  const Value out = kosmos2::text_model(in, b, text_config, spec);
  // segment_emb is looked up at the prompt's positions (1 where an image feature goes) and added with them.
  if (const graph::Node* embed = multimodal::prompt_embedding(b.graph()))
    b.parameter(Value{embed->index, embed->out}, "text_model.model.segment_emb.weight", {2, spec.hidden}, graph::TensorRole::Embedding);
  multimodal::scatter_image_features(b, features);
  return out;
}

}  // namespace
}  // namespace kosmos_2_5_impl

const Family& kosmos_2_5_family() {
  static const Family family{"kosmos-2.5", "models/kosmos2_5/modeling_kosmos2_5.py",
                             classes("Kosmos2_5", {heads::VisionLanguageGeneration}), kosmos_2_5_impl::build};
  return family;
}

}  // namespace neurarch::families
