// PaliGemma (models/paligemma/modeling_paligemma.py + configuration_paligemma.py, transformers 4.47.1): a
// SigLIP vision tower (AutoModel of vision_config) whose post-layernormed patches go through one
// nn.Linear (multi_modal_projector.linear, vision width -> projection_dim, with bias), are scaled by
// 1/sqrt(hidden) and replace the prompt's image tokens ((image_size / patch_size)^2 of them), and a causal LM
// of text_config (AutoModelForCausalLM: Gemma by default, Gemma 2 for PaliGemma 2) under `language_model`,
// its head tied by text_config's tie_word_embeddings. 4.47.1 names: vision_tower., multi_modal_projector.,
// language_model.model., language_model.lm_head. With no vision_config / text_config the config builds
// the 224-px So400m tower without its probe head and the 2B Gemma; a partial sub-config falls back on its
// own class's defaults, not on those.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/clip_common.hpp"
#include "families/multimodal_common.hpp"
#include "families/paligemma.hpp"

namespace neurarch::families {
namespace paligemma_impl {
namespace {

using namespace blocks;

Config vision_config_of(const Config& c) {
  return c.child("vision_config",
                 {{"model_type", "siglip_vision_model"}, {"intermediate_size", 4096}, {"hidden_size", 1152},
                  {"patch_size", 14}, {"image_size", 224}, {"num_hidden_layers", 27}, {"num_attention_heads", 16},
                  {"vision_use_head", false}});
}

Config text_config_of(const Config& c) {
  if (c.has("text_config")) return c.child("text_config");
  return c.child("text_config", {{"model_type", "gemma"}, {"hidden_size", 2048}, {"num_hidden_layers", 18},
                                 {"intermediate_size", 16384}, {"num_attention_heads", 8}, {"num_key_value_heads", 1},
                                 {"vocab_size", c.dim({"vocab_size"}, 257152)}});
}

// The vision tower and projector under the current nest; the projected image features [tokens, projection_dim].
Value image_features(const BuildInput& in, GraphBuilder& b, const Config& c, const Config& vision_config) {
  const std::string vision_type = vision_config.text({"model_type"}, "siglip_vision_model");
  if (vision_type != "siglip_vision_model")
    throw Error(ErrorKind::Unsupported, c.origin() + ": vision_config: key 'model_type'",
                fmt::format("PaliGemma's vision tower '{}' is not supported (siglip_vision_model is)", vision_type));
  clip::Tower tower;
  {
    graph::Nested nest(b, {.module = "vision_tower", .label = "Vision_", .first_block = 0});
    tower = clip::vision_tower(in, b, vision_config, clip::Variant::Siglip, Scope("vision_model"));
  }
  const std::int64_t projection = c.dim({"projection_dim"}, 2048);
  return dense(b, tower.sequence, "Projector_Linear", Scope("multi_modal_projector") / "linear", tower.hidden,
               projection, true);
}

// The language model of `head` (CausalLM in 4.47.1's layout, Base in 4.5x's) under `language_model`, with the
// image features scattered into its prompt.
Value with_language_model(const BuildInput& in, GraphBuilder& b, const Config& c, Head head) {
  const Config vision_config = vision_config_of(c);
  const Config text_config = text_config_of(c);
  const auto language_model =
      multimodal::find_language_model(c, text_config.text({"model_type"}, "gemma"), head, "PaliGemma");
  const Value features = image_features(in, b, c, vision_config);
  const Value out = multimodal::build_language_model(
      in, b, text_config, language_model, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, features);
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) { return with_language_model(in, b, in.config, Head::CausalLM); }

}  // namespace
}  // namespace paligemma_impl
using namespace paligemma_impl;

namespace paligemma {

Value base_model(const BuildInput& in, GraphBuilder& b, const Config& c) {
  return paligemma_impl::with_language_model(in, b, c, Head::Base);
}

}  // namespace paligemma

const Family& paligemma_family() {
  static const Family family{"paligemma", "models/paligemma/modeling_paligemma.py",
                             {{"PaliGemmaForConditionalGeneration", Head::CausalLM}}, paligemma_impl::build};
  return family;
}

}  // namespace neurarch::families
