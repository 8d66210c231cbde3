// Qwen2-Audio (Qwen2AudioForConditionalGeneration in models/qwen2_audio/modeling_qwen2_audio.py, transformers
// 4.47.1): the audio encoder of audio_config (qwen2_audio_encoder.cpp; the config class's own Whisper-large-v3
// sizes when absent) under `audio_tower`, `multi_modal_projector.linear` (d_model -> the text width, with bias),
// and the causal LM of text_config (Qwen2 by default) under `language_model` (4.47.1's layout:
// `language_model.model.*`, `language_model.lm_head`). 30 s of audio write 750 features, which replace the
// prompt's audio tokens.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/multimodal_common.hpp"
#include "families/qwen2_audio_encoder.hpp"

namespace neurarch::families {
namespace qwen2_audio_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config audio = c.child("audio_config", {{"model_type", "qwen2_audio_encoder"}});
  const std::string audio_type = audio.text({"model_type"}, "qwen2_audio_encoder");
  if (audio_type != "qwen2_audio_encoder")
    throw Error(ErrorKind::Unsupported, c.origin() + ": audio_config: key 'model_type'",
                fmt::format("Qwen2-Audio's audio tower '{}' is not supported (qwen2_audio_encoder is)", audio_type));
  const Config text = c.child("text_config");
  const auto lm = multimodal::find_language_model(c, text.text({"model_type"}, "qwen2"), Head::CausalLM, "Qwen2-Audio");
  const std::int64_t text_hidden = multimodal::token_width(in, text, lm);
  Value features;
  {
    graph::Nested nest(b, {.module = "audio_tower", .label = "Audio_", .first_block = 0});
    // --seq is the prompt's length; the encoder always reads 30 s of mel frames.
    const BuildInput audio_in{audio, in.class_name, Head::Base, std::nullopt, std::nullopt};
    features = qwen2_audio::encoder(audio_in, b, audio);
  }
  features = dense(b, features, "Projector_Linear", Scope("multi_modal_projector") / "linear", features.shape.back(),
                   text_hidden, true);
  const Value logits = multimodal::build_language_model(
      in, b, text, lm, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, features);
  return logits;
}

}  // namespace
}  // namespace qwen2_audio_impl

const Family& qwen2_audio_family() {
  static const Family family{"qwen2_audio", "models/qwen2_audio/modeling_qwen2_audio.py",
                             {{"Qwen2AudioForConditionalGeneration", Head::CausalLM}}, qwen2_audio_impl::build};
  return family;
}

}  // namespace neurarch::families
