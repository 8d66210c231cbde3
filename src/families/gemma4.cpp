// Gemma 4 whole (Gemma4Model, Gemma4ForConditionalGeneration in models/gemma4/modeling_gemma4.py +
// configuration_gemma4.py, transformers 5.24.0): the gemma4_text model under `language_model` (Gemma4Config always
// makes text_config a Gemma4TextConfig) and, in the generation class, lm_head beside `model`, tied to the
// embedding by the composite config's tie_word_embeddings (default true). vision_config and audio_config are
// optional and None by default, so the defaults are the language model alone. With them, Gemma4Model also holds
// `vision_tower` (Gemma4VisionModel, gemma4_vision.cpp) and `embed_vision`, `audio_tower` (Gemma4AudioModel,
// gemma4_audio.cpp) and `embed_audio`: each embedder (Gemma4MultimodalEmbedder) normalises the tower's soft tokens
// without a scale and projects them to the text width, and they replace the prompt's image and audio tokens.
// The config classes are fixed (Gemma4VisionConfig, Gemma4AudioConfig), whatever model_type the sub-configs state.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/gemma4_towers.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace gemma4_impl {
namespace {

bool present(const Config& c, const char* key) {
  const auto* sub = c.raw({key});
  return sub && !sub->is_null();
}

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  const Config& c = in.config;
  const Config text_config = c.child("text_config");
  const auto language_model = multimodal::find_language_model(c, "gemma4_text", Head::Base, "Gemma 4");
  const blocks::Scope model(in.head == Head::Base ? "" : "model");
  const std::int64_t text_hidden = multimodal::token_width(in, text_config, language_model);

  std::vector<blocks::Value> soft_tokens;
  if (present(c, "vision_config")) {
    const Config vision_config = c.child("vision_config");
    blocks::Value features;
    {
      graph::Nested nest(b, {.module = (model / "vision_tower").path(), .label = "Vision_", .first_block = 0});
      features = gemma4::vision_tower(b, vision_config, gemma4::kDefaultImageTokens);
    }
    soft_tokens.push_back(gemma4::embed(b, features, text_hidden, model / "embed_vision", "Embed_Vision"));
  }
  if (present(c, "audio_config")) {
    const Config audio_config = c.child("audio_config");
    blocks::Value features;
    {
      graph::Nested nest(b, {.module = (model / "audio_tower").path(), .label = "Audio_", .first_block = b.next_block()});
      features = gemma4::audio_tower(b, audio_config, gemma4::kDefaultAudioFrames);
    }
    soft_tokens.push_back(gemma4::embed(b, features, text_hidden, model / "embed_audio", "Embed_Audio"));
  }

  const blocks::Value hidden = multimodal::build_language_model(
      in, b, text_config, language_model,
      {.module = (model / "language_model").path(), .label = "LM_", .first_block = b.next_block()});
  for (const auto& features : soft_tokens) multimodal::scatter_image_features(b, features);
  if (in.head != Head::CausalLM) return hidden;
  blocks::LmHeadSpec head{.module = blocks::Scope("lm_head"), .hidden = text_hidden,
                          .vocab = text_config.dim({"vocab_size"}, 262144)};
  if (c.flag({"tie_word_embeddings"}, true)) head.tied_weight = (model / "language_model" / "embed_tokens")("weight");
  return blocks::lm_head(b, hidden, "LM_Head", head);
}

}  // namespace
}  // namespace gemma4_impl

const Family& gemma4_family() {
  static const Family family{"gemma4", "models/gemma4/modeling_gemma4.py",
                             classes("Gemma4", {heads::VisionLanguageGeneration}), gemma4_impl::build};
  return family;
}

}  // namespace neurarch::families
