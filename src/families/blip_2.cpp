// BLIP-2 (models/blip_2/modeling_blip_2.py + configuration_blip_2.py, transformers 4.47.1): a ViT-g tower
// (blip_common; qkv_bias stores one qkv.bias), `query_tokens` read through the Q-Former, which cross-attends to
// every image token every cross_attention_frequency layers, then language_projection into the language model of
// text_config (OPT by default, Flan-T5 for the seq2seq checkpoints), built by its own family under
// `language_model`. BlipConfig hands the vision width to the Q-Former as encoder_hidden_size. Blip2Model runs the
// same pipeline as Blip2ForConditionalGeneration (it returns the LM's logits), so both build one graph.
#include "families/blip_common.hpp"
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace blip_2_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config qformer_config = c.child("qformer_config");
  const Config text_config = c.child("text_config");
  const std::int64_t queries = c.dim({"num_query_tokens"}, 32);
  const std::int64_t qformer_hidden = qformer_config.dim({"hidden_size"}, 768);

  blip::VisionTower v;
  {
    graph::Nested nest(b, {.module = "", .label = "Vision_", .first_block = 0});
    v = blip::vision_tower(in, b, vision_config, blip::kBlip2Vision, Scope("vision_model"));
  }
  Value query_output;
  {
    graph::Nested nest(b, {.module = "", .label = "QFormer_", .first_block = b.next_block()});
    query_output = blip::qformer(b, qformer_config,
                                 {.root = Scope("qformer"),
                                  .queries = blip::query_tokens(b, queries, qformer_hidden),
                                  .image = v.sequence,
                                  .encoder_width = v.hidden,
                                  .text_ffn = qformer_config.flag({"use_qformer_text_input"}, false)});
  }
  auto features = dense(b, query_output, "Language_Projection", Scope("language_projection"), qformer_hidden,
                        blip::language_width(in, text_config), true);
  return blip::language_model(in, b, text_config, features);
}

}  // namespace
}  // namespace blip_2_impl

const Family& blip_2_family() {
  static const Family family{"blip-2", "models/blip_2/modeling_blip_2.py",
                             classes("Blip2", {heads::VisionLanguageGeneration}), blip_2_impl::build};
  return family;
}

}  // namespace neurarch::families
