// Voxtral (VoxtralForConditionalGeneration in models/voxtral/modeling_voxtral.py + configuration_voxtral.py,
// transformers 4.57.6): the audio encoder of audio_config (voxtral_encoder.cpp) under `audio_tower`, whose states
// are regrouped four frames to a row (reshape to [-1, intermediate_size]: 1500 x 1280 -> 375 x 5120), a bias-free
// projector (linear_1 -> projector_hidden_act -> linear_2) into the text width, and the causal LM of text_config
// (Llama by default, with VoxtralConfig's own sizes for keys the text config leaves out) under `language_model`
// (`language_model.model.*`, `language_model.lm_head`). 30 s of audio write 375 features into the prompt.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/multimodal_common.hpp"
#include "families/voxtral_encoder.hpp"

namespace neurarch::families {
namespace voxtral_impl {
namespace {

using namespace blocks;

// VoxtralConfig._default_text_config_kwargs: under any text config the file gives (the file's keys win).
Config text_config_of(const Config& c) {
  nlohmann::json text{{"model_type", "llama"},       {"vocab_size", 131072},   {"hidden_size", 3072},
                      {"intermediate_size", 8192},   {"num_hidden_layers", 30}, {"num_key_value_heads", 8},
                      {"max_position_embeddings", 131072}, {"rms_norm_eps", 1e-05}, {"rope_theta", 100000000.0},
                      {"head_dim", 128}};
  if (const auto* given = c.raw({"text_config"}); given && given->is_object())
    for (const auto& [key, value] : given->items()) text[key] = value;
  return Config(std::move(text), c.origin() + ": text_config");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config audio = c.child("audio_config", {{"model_type", "voxtral_encoder"}});
  const std::string audio_type = audio.text({"model_type"}, "voxtral_encoder");
  if (audio_type != "voxtral_encoder")
    throw Error(ErrorKind::Unsupported, c.origin() + ": audio_config: key 'model_type'",
                fmt::format("Voxtral's audio tower '{}' is not supported (voxtral_encoder is)", audio_type));
  const Config text = text_config_of(c);
  const auto lm = multimodal::find_language_model(c, text.text({"model_type"}, "llama"), Head::CausalLM, "Voxtral");
  const std::int64_t text_hidden = multimodal::token_width(in, text, lm);
  const std::int64_t group = audio.dim({"intermediate_size", "encoder_ffn_dim"}, voxtral::kEncoderDefaults.ffn);
  Value states;
  {
    graph::Nested nest(b, {.module = "audio_tower", .label = "Audio_", .first_block = 0});
    // --seq is the prompt's length; the encoder always reads 30 s of mel frames.
    const BuildInput audio_in{audio, in.class_name, Head::Base, std::nullopt, std::nullopt};
    states = voxtral::encoder(audio_in, b, audio);
  }
  const std::int64_t values = states.shape.front() * states.shape.back();
  const std::int64_t rows = values / group;
  const Scope projector("multi_modal_projector");
  auto x = dense(b, Value{states.node, {rows, group}}, "Projector_Linear_1", projector / "linear_1", group, text_hidden,
                 false, c.text({"projector_hidden_act"}, "gelu"));
  if (values % group != 0)
    b.fail(x, fmt::format("{} audio states of width {} cannot be regrouped into rows of intermediate_size {}",
                          states.shape.front(), states.shape.back(), group));
  x = dense(b, x, "Projector_Linear_2", projector / "linear_2", text_hidden, text_hidden, false);
  const Value logits = multimodal::build_language_model(
      in, b, text, lm, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, x);
  return logits;
}

}  // namespace
}  // namespace voxtral_impl

const Family& voxtral_family() {
  static const Family family{"voxtral", "models/voxtral/modeling_voxtral.py",
                             {{"VoxtralForConditionalGeneration", Head::CausalLM}}, voxtral_impl::build};
  return family;
}

}  // namespace neurarch::families
