// Gemma 4 whole (Gemma4Model, Gemma4ForConditionalGeneration in models/gemma4/modeling_gemma4.py +
// configuration_gemma4.py, transformers 5.24.0): the gemma4_text model under `language_model` (Gemma4Config always
// makes text_config a Gemma4TextConfig) and, in the generation class, lm_head beside `model`, tied to the
// embedding by the composite config's tie_word_embeddings (default true). vision_config and audio_config are
// optional and None by default, so the defaults are the language model alone; a config with either tower is
// refused until the towers are built.
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  const Config& c = in.config;
  for (const char* tower : {"vision_config", "audio_config"})
    if (const auto* config = c.raw({tower}); config && !config->is_null())
      throw Error(ErrorKind::Unsupported, fmt::format("{}: key '{}'", c.origin(), tower),
                  "Gemma 4's vision and audio towers are not supported yet (its text model is: gemma4_text)");
  const Config text_config = c.child("text_config");
  const auto language_model = multimodal::find_language_model(c, "gemma4_text", Head::Base, "Gemma 4");
  const blocks::Scope model(in.head == Head::Base ? "" : "model");
  const blocks::Value hidden = multimodal::build_language_model(
      in, b, text_config, language_model,
      {.module = (model / "language_model").path(), .label = "LM_", .first_block = 0});
  if (in.head != Head::CausalLM) return hidden;
  const std::int64_t text_hidden = multimodal::token_width(in, text_config, language_model);
  blocks::LmHeadSpec head{.module = blocks::Scope("lm_head"), .hidden = text_hidden,
                          .vocab = text_config.dim({"vocab_size"}, 262144)};
  if (c.flag({"tie_word_embeddings"}, true)) head.tied_weight = (model / "language_model" / "embed_tokens")("weight");
  return blocks::lm_head(b, hidden, "LM_Head", head);
}

}  // namespace

const Family& gemma4_family() {
  static const Family family{"gemma4", "models/gemma4/modeling_gemma4.py",
                             classes("Gemma4", {heads::VisionLanguageGeneration}), build};
  return family;
}

}  // namespace neurarch::families
