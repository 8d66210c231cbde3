#pragma once
// What the LLaVA family of composite models share (models/llava, llava_next, llava_next_video, vipllava,
// llava_onevision): a vision tower built by the CLIP/SigLIP code, hidden states picked from some of its
// layers, a projector into the language model's width, and a causal LM of any registered decoder family
// whose prompt embedding receives the projected image features in place of its image tokens. LLaVA-NeXT
// and OneVision add "anyres": the photo is resized to one of image_grid_pinpoints, cut into tower-sized
// crops plus one downscaled view, and the crops' features are re-tiled, unpadded and given a learned
// `image_newline` at the end of every row.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "families/clip_common.hpp"
#include "families/family.hpp"

namespace neurarch::families::llava {

using blocks::GraphBuilder;
using blocks::Scope;
using blocks::Value;

/// The vision tower LlavaConfig, VipLlavaConfig and LlavaNextConfig take when vision_config is absent:
/// CLIP ViT-L/14 at 336 px.
const nlohmann::json& clip_vit_l14_336();

/// The sub-configs of a composite config and the families that build them.
struct Parts {
  Config vision;
  Config text;
  clip::Variant variant = clip::Variant::Clip;
  const Family* text_family = nullptr;
  const ClassDef* causal_lm = nullptr;  ///< the text family's CausalLM class
};

/// vision_config (or `default_vision` when absent) and text_config (model_type `default_text_type` when it
/// does not say); errors name the key when a tower or language model is not supported.
Parts read_parts(const Config& c, const nlohmann::json& default_vision, std::string_view default_text_type);

/// The language model's token width (its family's default when text_config leaves hidden_size out): what
/// the projector writes.
std::int64_t text_width(const BuildInput& in, const Parts& p);

/// An int or a list of ints under `key` (vision_feature_layer, vision_feature_layers).
std::vector<std::int64_t> feature_layers(const Config& c, std::string_view key, std::vector<std::int64_t> fallback);

/// "default" (drop the first token, CLIP's class token) or "full"; anything else is refused.
bool drops_first_token(const Config& c, std::string_view fallback);

struct VisionFeatures {
  std::vector<Value> picked;  ///< the selected hidden states, in the order of `layers`
  Value features;             ///< picked[0]'s node with the concatenated width: [(crops,) tokens, width]
  std::int64_t width = 0;     ///< tower hidden x number of picked layers
};

/// The tower under `tower` (by default `vision_tower`, nodes "Vision_..."), run over `crops` images, with the
/// hidden states of `layers` (negative: from the end) picked and, when `drop_first`, their first token removed.
VisionFeatures vision_features(const BuildInput& in, GraphBuilder& b, const Config& c, const Parts& p,
                               const std::vector<std::int64_t>& layers, bool drop_first, std::int64_t crops,
                               const graph::Nest& tower = {.module = "vision_tower", .label = "Vision_"});

/// linear_1 -> act -> linear_2 under `module` (LlavaMultiModalProjector); further picked layers join
/// linear_1's inputs (they are concatenated along the width).
Value two_layer_projector(GraphBuilder& b, const Value& x, const VisionFeatures& f, const Scope& module,
                          std::int64_t text_hidden, bool bias, const std::string& activation);

/// LLaVA-NeXT's anyres geometry for one photo.
struct Anyres {
  std::int64_t photo_h = 0, photo_w = 0;  ///< the photo the processor is given
  std::int64_t best_h = 0, best_w = 0;    ///< the pinpoint select_best_resolution picks
  std::int64_t crops = 0;                 ///< grid crops + the downscaled whole view
  std::int64_t side = 0;                  ///< features per crop side: image_size / patch_size
  std::int64_t rows = 0, columns = 0;     ///< the re-tiled grid after unpadding (and downscaling)
  std::int64_t tokens = 0;                ///< side^2 (whole view) + rows x (columns + 1 newline)
  std::string problem;                    ///< why the reference cannot tile these crops, "" when it can
};

/// The photo is --image-size square, else the largest-area pinpoint exactly (the most image tokens the
/// model produces, which a memory plan must cover). `max_crops` > 0 is OneVision's anyres_max_N: a grid
/// of more than N crops' worth of features is bilinearly downscaled.
Anyres anyres(const Config& c, const nlohmann::json& default_pinpoints, std::int64_t image_size,
              std::int64_t patch_size, std::optional<std::int64_t> photo_side, std::int64_t max_crops);

/// Where the text model's modules live: transformers 4.47.1 wraps the CausalLM as `language_model`
/// (`language_model.model.*`, `language_model.lm_head`); 4.5x names the base model `model.language_model`
/// beside `model.vision_tower` and keeps `lm_head` at the top.
enum class Layout { Legacy, Model };

/// The prompt length: --seq, else the usual default of the language model configured by `text`, raised to
/// hold `image_tokens`.
std::int64_t prompt_length(const BuildInput& in, GraphBuilder& b, const Config& text, std::int64_t image_tokens);

/// The language model under `language_model` (nodes "LM_..."): the CausalLM (Layout::Legacy, or `head` is
/// CausalLM) or the base model (Layout::Model: the caller adds lm_head outside the `model` nest).
Value language_model(const BuildInput& in, GraphBuilder& b, const Parts& p, Layout layout, std::int64_t seq);

/// `lm_head` over the base model's output, sized by (and, when text_config ties them, tied to) the
/// language model's token embedding.
Value top_lm_head(GraphBuilder& b, const Value& x, const Config& text);
/// The same, tied as `tied` says (transformers 5 reads the composite config's own tie_word_embeddings).
Value top_lm_head(GraphBuilder& b, const Value& x, const Config& text, bool tied);

/// The embedding of input_ids reads `image` too (masked_scatter of the image features); fails when the
/// prompt cannot hold `image_tokens`. Makes input_ids the main input.
void scatter_into_prompt(GraphBuilder& b, const Value& image, std::int64_t image_tokens);

}  // namespace neurarch::families::llava

namespace neurarch::families::llava {

/// What an anyres model type (LLaVA-NeXT, LLaVA-NeXT-Video, LLaVA-OneVision) takes from its own config class.
struct AnyresModel {
  nlohmann::json default_vision;      ///< vision_config when absent
  std::string default_text_type;      ///< text_config's model_type when absent
  nlohmann::json default_pinpoints;   ///< image_grid_pinpoints when absent
  std::int64_t default_feature_layer = -2;
  std::string default_strategy = "default";
  bool read_max_crops = false;  ///< vision_aspect_ratio "anyres_max_N" (OneVision)
  Layout layout = Layout::Legacy;
};

/// LlavaNextConfig's defaults (LLaVA-NeXT-Video's config class inherits them): the CLIP tower, a Llama,
/// five pinpoints up to 672 x 672.
AnyresModel llava_next_defaults();

/// The whole model: anyres crops through the tower, the two-layer projector, the re-tiled features with
/// `image_newline`, scattered into the language model's prompt; `in.head` Base builds the 4.5x base model.
Value build_anyres(const BuildInput& in, GraphBuilder& b, const AnyresModel& m);

}  // namespace neurarch::families::llava
