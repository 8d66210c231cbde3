// Fuyu (models/fuyu/modeling_fuyu.py + configuration_fuyu.py, transformers 4.47.1): no vision encoder. The
// processor cuts the image into patch_size x patch_size tiles, each flattened to patch^2 * channels values;
// `vision_embed_tokens` (an nn.Linear with bias, to FuyuConfig's hidden_size) embeds them and they replace the
// image placeholder tokens of the prompt. The language model is text_config's causal LM (Persimmon by default),
// built by its own family under `language_model` (model.*, lm_head). Without text_config, FuyuConfig builds one
// from its own top-level keys. The image is --image-size square, else image_size (300): (S / patch)^2 tiles.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/clip_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace fuyu_impl {
namespace {

using namespace blocks;

// FuyuConfig.__init__ hands these top-level keys to the text model when text_config is absent.
Config text_config_of(const Config& c) {
  if (c.has("text_config")) return c.child("text_config");
  nlohmann::json text = {{"model_type", "persimmon"}};
  for (const char* key : {"vocab_size", "max_position_embeddings", "hidden_size", "intermediate_size",
                          "num_hidden_layers", "num_attention_heads", "hidden_act", "layer_norm_eps", "rope_theta",
                          "rope_scaling", "qk_layernorm", "hidden_dropout", "attention_dropout",
                          "partial_rotary_factor", "pad_token_id", "tie_word_embeddings"})
    if (const auto* v = c.raw({key})) text[key] = *v;
  return c.child("text_config", std::move(text));
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config text_config = text_config_of(c);
  const auto language_model =
      multimodal::find_language_model(c, text_config.text({"model_type"}, "persimmon"), Head::CausalLM, "Fuyu");
  const std::int64_t patch = c.dim({"patch_size"}, 30);
  const std::int64_t channels = c.dim({"num_channels"}, 3);
  const std::int64_t side = in.image_size(c.dim({"image_size"}, 300)) / patch;
  const std::int64_t hidden = c.dim({"hidden_size"}, 4096);

  auto patches = b.input({side * side, patch * patch * channels}, "pixels", "image_patches");
  auto features = dense(b, patches, "Vision_Embed_Tokens", Scope("vision_embed_tokens"), patch * patch * channels,
                        hidden, true);
  if (side < 1)
    b.fail(features, fmt::format("an image of {0}x{0} pixels holds no {1}x{1} patch",
                                 in.image_size(c.dim({"image_size"}, 300)), patch));
  const Value logits = multimodal::build_language_model(
      in, b, text_config, language_model, {.module = "language_model", .label = "LM_", .first_block = 0});
  multimodal::scatter_image_features(b, features);
  return logits;
}

}  // namespace
}  // namespace fuyu_impl

const Family& fuyu_family() {
  static const Family family{"fuyu", "models/fuyu/modeling_fuyu.py", {{"FuyuForCausalLM", Head::CausalLM}}, fuyu_impl::build};
  return family;
}

}  // namespace neurarch::families
