// Idefics 3 (models/idefics3/modeling_idefics3.py + configuration_idefics3.py, transformers 5.24.0; SmolVLM,
// models/smolvlm, is the same model under other class names): Idefics3's NaViT-style SigLIP tower (vision_config)
// under `vision_model`; a `connector` that pixel-shuffles the tower's patch grid (every scale_factor x scale_factor
// patches become one token scale_factor^2 x wider) and projects it without bias to the text width
// (modality_projection.proj); the text model is text_config's base model (AutoModel: Llama with rms_norm_eps 1e-5 by
// default) under `text_model`, and the head class adds `lm_head` beside `model`, tied to the
// text model's embedding only when the composite config's own tie_word_embeddings says so (transformers 5).
// One image, kept whole (the processor's splitting aside), writes (image_size / patch / scale_factor)^2 tokens.
#include <fmt/format.h>

#include "families/idefics3_vision.hpp"
#include "families/llava_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace idefics3_impl {
namespace {

using namespace blocks;

Config text_config_of(const Config& c) {
  if (c.has("text_config")) return c.child("text_config");
  return Config({{"model_type", "llama"}, {"rms_norm_eps", 1e-5}}, c.origin() + ": text_config");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = text_config_of(c);
  const auto lm = multimodal::find_language_model(c, text_config.text({"model_type"}, "llama"), Head::Base,
                                                 "Idefics 3");
  const std::int64_t text_hidden = multimodal::token_width(in, text_config, lm);
  const std::int64_t scale = c.dim({"scale_factor"}, 2);
  const bool with_head = in.head != Head::Base;

  Value out;
  {
    std::optional<graph::Nested> model;
    if (with_head) model.emplace(b, graph::Nest{.module = "model", .label = ""});
    clip::Tower tower;
    {
      graph::Nested nest(b, {.module = "vision_model", .label = "Vision_", .first_block = 0});
      tower = clip::navit_tower(in, b, vision_config, Scope(), idefics3_vision_defaults());
    }
    const std::int64_t patches = tower.sequence.shape.front();
    const std::int64_t tokens = patches / (scale * scale);
    Value features;
    {
      graph::Nested nest(b, {.module = "connector", .label = "Connector_", .first_block = b.next_block()});
      // pixel_shuffle only reshapes: the projection reads the tower's output laid out scale^2 x wider.
      features = dense(b, Value{tower.sequence.node, {tokens, tower.hidden * scale * scale}}, "Modality_Projection",
                       Scope("modality_projection") / "proj", tower.hidden * scale * scale, text_hidden, false);
      if (patches % (scale * scale) != 0)
        b.fail(features, fmt::format("{} patches cannot be pixel-shuffled by scale_factor {}", patches, scale));
    }
    b.note(fmt::format("one {0}x{0} image: {1} patches through the vision tower, pixel-shuffled by {2} into {3} image "
                       "tokens in the prompt; --image-size sets the image's side",
                       tower.input.shape.back(), patches, scale, tokens));
    const std::int64_t seq = llava::prompt_length(in, b, text_config, tokens);
    const BuildInput with_seq{in.config, in.class_name, in.head, seq, in.requested_image_size};
    out = multimodal::build_language_model(with_seq, b, text_config, lm,
                                           {.module = "text_model", .label = "LM_", .first_block = b.next_block()});
    llava::scatter_into_prompt(b, features, tokens);
  }
  if (with_head) out = llava::top_lm_head(b, out, text_config, c.flag({"tie_word_embeddings"}, false));
  return out;
}

}  // namespace
}  // namespace idefics3_impl

const Family& idefics3_family() {
  static const Family family{"idefics3", "models/idefics3/modeling_idefics3.py",
                             {{"Idefics3Model", Head::Base}, {"Idefics3ForConditionalGeneration", Head::CausalLM}},
                             idefics3_impl::build};
  return family;
}

const Family& smolvlm_family() {
  static const Family family{"smolvlm", "models/smolvlm/modeling_smolvlm.py",
                             {{"SmolVLMModel", Head::Base}, {"SmolVLMForConditionalGeneration", Head::CausalLM}},
                             idefics3_impl::build};
  return family;
}

}  // namespace neurarch::families
