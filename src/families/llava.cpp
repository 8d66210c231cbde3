// LLaVA (models/llava/modeling_llava.py, transformers 4.47.1): a vision tower (AutoModel of vision_config:
// CLIPVisionModel by default, SigLIP's for the variants that use it), a two-layer projector
// (linear_1 -> projector_hidden_act -> linear_2) from the hidden state(s) of vision_feature_layer, and the
// causal LM of text_config (AutoModelForCausalLM: any decoder family of the registry, built by its own code
// under `language_model`). The projected image features replace the prompt's image-token embeddings, so the
// prompt must hold one token per feature (576 for a 336-px, 14-px-patch tower with the "default" strategy,
// which drops the class token). The whole vision tower runs, its last layers and post_layernorm included,
// though only the selected layer feeds the projector.
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/clip_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

// LlavaConfig's vision tower when vision_config is absent: CLIP ViT-L/14 at 336 px.
nlohmann::json default_vision_config() {
  return {{"model_type", "clip_vision_model"}, {"intermediate_size", 4096}, {"hidden_size", 1024},
          {"patch_size", 14},   {"image_size", 336},  {"num_hidden_layers", 24},
          {"num_attention_heads", 16}, {"vocab_size", 32000}, {"projection_dim", 768}};
}

std::vector<std::int64_t> feature_layers(const Config& c) {
  const auto* v = c.raw({"vision_feature_layer"});
  if (!v) return {c.integer({"vision_feature_layer"}, -2)};
  if (v->is_array()) {
    std::vector<std::int64_t> out;
    for (const auto& e : *v) {
      if (!e.is_number_integer())
        throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'vision_feature_layer'", c.origin()),
                    "expected an integer or a list of integers");
      out.push_back(e.get<std::int64_t>());
    }
    if (!out.empty()) return out;
  }
  return {c.integer({"vision_feature_layer"})};
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config vision_config = c.has("vision_config") ? clip::sub_config(c, "vision_config")
                                                      : Config(default_vision_config(), c.origin() + ": vision_config");
  const Config text_config = clip::sub_config(c, "text_config");
  const std::string vision_type = vision_config.text({"model_type"}, "clip_vision_model");
  const std::string text_type = text_config.text({"model_type"}, "llama");
  const std::string strategy = c.text({"vision_feature_select_strategy"}, "default");
  if (strategy != "default" && strategy != "full")
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'vision_feature_select_strategy'",
                fmt::format("expected \"default\" or \"full\", found \"{}\"", strategy));
  clip::Variant variant;
  if (vision_type == "clip_vision_model") variant = clip::Variant::Clip;
  else if (vision_type == "siglip_vision_model") variant = clip::Variant::Siglip;
  else
    throw Error(ErrorKind::Unsupported, c.origin() + ": vision_config: key 'model_type'",
                fmt::format("LLaVA's vision tower '{}' is not supported (clip_vision_model, siglip_vision_model are)",
                            vision_type));
  const auto language_model = multimodal::find_language_model(c, text_type, Head::CausalLM, "LLaVA");

  // The vision tower and the projector.
  Value features;
  std::vector<Value> picked;
  {
    graph::Nested nest(b, {.module = "vision_tower", .label = "Vision_", .first_block = 0});
    auto tower = clip::vision_tower(in, b, vision_config, variant, Scope("vision_model"));
    const auto layers = feature_layers(c);
    const auto states = static_cast<std::int64_t>(tower.hidden_states.size());
    for (auto layer : layers) {
      const std::int64_t index = layer < 0 ? states + layer : layer;
      if (index < 0 || index >= states)
        throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'vision_feature_layer'",
                    fmt::format("layer {} is outside the tower's {} hidden states", layer, states));
      picked.push_back(tower.hidden_states[static_cast<std::size_t>(index)]);
    }
    std::int64_t tokens = picked.front().shape.front();
    if (strategy == "default") --tokens;  // the first token (CLIP's class token) is dropped
    features = Value{picked.front().node, {tokens, tower.hidden * static_cast<std::int64_t>(picked.size())}};
  }
  const std::int64_t text_hidden = text_config.dim({"hidden_size"}, 4096);
  const bool projector_bias = c.flag({"multimodal_projector_bias"}, true);
  const Scope projector("multi_modal_projector");
  auto x = dense(b, features, "Projector_Linear_1", projector / "linear_1", features.shape.back(), text_hidden,
                 projector_bias, c.text({"projector_hidden_act"}, "gelu"));
  // Several feature layers are concatenated along the hidden dimension.
  for (std::size_t i = 1; i < picked.size(); ++i) b.at(x).inputs.push_back(picked[i].node);
  x = dense(b, x, "Projector_Linear_2", projector / "linear_2", text_hidden, text_hidden, projector_bias);

  // The language model, by its own family's code.
  const Value logits = multimodal::build_language_model(
      in, b, text_config, language_model, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, x);
  return logits;
}

}  // namespace

const Family& llava_family() {
  static const Family family{"llava", "models/llava/modeling_llava.py",
                             {{"LlavaForConditionalGeneration", Head::CausalLM}}, build};
  return family;
}

}  // namespace neurarch::families
