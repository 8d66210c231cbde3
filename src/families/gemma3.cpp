// Gemma 3 multimodal (models/gemma3/modeling_gemma3.py + configuration_gemma3.py, transformers 4.57.6):
// a SigLIP vision tower (SiglipVisionModel, attention-probe head included unless vision_use_head is
// false, though only last_hidden_state is read), Gemma3MultiModalProjector (the patch grid average-pooled
// to mm_tokens_per_image tokens, an RMSNorm over the vision width, then a bare [vision, text] matrix
// mm_input_projection_weight) and the Gemma 3 text model, whose prompt embedding receives the image tokens.
// Gemma3Config always makes text_config a Gemma3TextConfig and vision_config a SiglipVisionConfig,
// whatever model_type they state. 4.57 keeps everything under `model.` (Gemma3Model) with lm_head beside it.
#include "families/gemma3.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "families/clip_common.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace gemma3 {

using namespace blocks;

namespace gemma3_impl {
namespace {

// The projector's shape check mirrors its forward: the tower's patches reshaped into the configured
// side x side grid, pooled by kernel = side // sqrt(mm_tokens_per_image).
Value projector(GraphBuilder& b, const Config& c, const Config& vision_config, const clip::Tower& tower,
                std::int64_t text_hidden, const Scope& module) {
  const std::int64_t tokens = c.dim({"mm_tokens_per_image"}, 256);
  const std::int64_t side =
      vision_config.dim({"image_size"}, 224) / vision_config.dim({"patch_size"}, 16);
  const auto tokens_per_side = static_cast<std::int64_t>(std::sqrt(static_cast<double>(tokens)));
  const std::int64_t kernel = tokens_per_side > 0 ? side / tokens_per_side : 0;
  const std::int64_t vision_hidden = tower.hidden;

  const Value grid{tower.sequence.node, {vision_hidden, side, side}};
  Value pooled;
  if (kernel > 0) {
    pooled = pool(b, grid, "Projector_AvgPool", false, kernel, kernel);
  } else {
    pooled = b.node(graph::NodeType::Pool, "Projector_AvgPool", {vision_hidden, 0, 0}, {grid});
    b.fail(pooled, fmt::format("mm_tokens_per_image {} asks for {} tokens a side from a {}x{} patch grid: "
                               "AvgPool2d's kernel would be {} // {} = 0",
                               tokens, tokens_per_side, side, side, side, tokens_per_side));
  }
  if (tower.sequence.shape.front() != side * side)
    b.fail(pooled, fmt::format("the tower's {} patches do not fill the {}x{} grid the projector reshapes them into",
                               tower.sequence.shape.front(), side, side));
  const std::int64_t produced = b.at(pooled).out.size() == 3 ? b.at(pooled).out[1] * b.at(pooled).out[2] : 0;
  if (kernel > 0 && produced != tokens)
    b.fail(pooled, fmt::format("pooling a {}x{} grid by {} gives {} image tokens, but the prompt holds "
                               "mm_tokens_per_image = {}",
                               side, side, kernel, produced, tokens));
  auto x = norm(b, Value{pooled.node, {produced, vision_hidden}}, "Projector_RMSNorm",
                {module / "mm_soft_emb_norm", NormKind::RMSNorm, false});
  // A bare parameter multiplied from the right: [vision, text], the transpose of an nn.Linear weight.
  auto projected = b.node(graph::NodeType::Linear, "Projector_Projection", {produced, text_hidden}, {x}, module);
  b.parameter(projected, module("mm_input_projection_weight"), {vision_hidden, text_hidden}, graph::TensorRole::Matrix);
  return projected;
}

}  // namespace
}  // namespace gemma3_impl
using namespace gemma3_impl;

Value conditional_generation(const BuildInput& in, GraphBuilder& b, const Scope& model, const Scope& head_root,
                             std::string_view text_type) {
  const Config& c = in.config;
  const Config vision_config = c.child("vision_config");
  const Config text_config = c.child("text_config");
  const std::string vision_type = vision_config.text({"model_type"}, "siglip_vision_model");
  if (vision_type != "siglip_vision_model")
    throw Error(ErrorKind::Unsupported, c.origin() + ": vision_config: key 'model_type'",
                fmt::format("Gemma 3's vision tower '{}' is not supported (siglip_vision_model is)", vision_type));
  const auto language_model = multimodal::find_language_model(c, text_type, Head::Base, "Gemma 3");

  clip::Tower tower;
  {
    graph::Nested nest(b, {.module = (model / "vision_tower").path(), .label = "Vision_", .first_block = 0});
    tower = clip::vision_tower(in, b, vision_config, clip::Variant::Siglip, Scope("vision_model"));
  }
  const std::int64_t text_hidden = text_config.dim({"hidden_size"}, 2304);
  const Value features = projector(b, c, vision_config, tower, text_hidden, model / "multi_modal_projector");

  const Value hidden = multimodal::build_language_model(
      in, b, text_config, language_model,
      {.module = (model / "language_model").path(), .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, features);

  switch (in.head) {
    case Head::CausalLM: {
      const std::int64_t vocab = text_config.dim({"vocab_size"}, 262208);
      LmHeadSpec head{.module = head_root / "lm_head", .hidden = text_hidden, .vocab = vocab};
      if (text_config.flag({"tie_word_embeddings"}, true))
        head.tied_weight = (model / "language_model" / "embed_tokens")("weight");
      return lm_head(b, hidden, "LM_Head", head);
    }
    case Head::SequenceClassification: {
      // Every position is scored; the logits of the last non-pad token are kept.
      auto last = b.node(graph::NodeType::Pooler, "Last_Token_Pool", {text_hidden}, {hidden});
      return classifier(b, last, "Classifier", head_root / "score", text_hidden, in.num_labels(), false);
    }
    default:
      return hidden;
  }
}

}  // namespace gemma3

namespace gemma3_impl {
namespace {

// Checkpoints published before 4.52 (google/gemma-3-*) keep the older layout, which 4.57 renames on load
// (_checkpoint_conversion_mapping); the checkpoint comparison reads them the same way.
void legacy_layout(const BuildInput& in, blocks::GraphBuilder& b) {
  if (in.head == Head::Base) {
    b.checkpoint_rename("language_model.model", "language_model");
    return;
  }
  b.checkpoint_rename("language_model.model", "model.language_model");
  b.checkpoint_rename("vision_tower", "model.vision_tower");
  b.checkpoint_rename("multi_modal_projector", "model.multi_modal_projector");
  if (in.head == Head::CausalLM) b.checkpoint_rename("language_model.lm_head", "lm_head");
}

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  const blocks::Scope model(in.head == Head::Base ? "" : "model");
  legacy_layout(in, b);
  return gemma3::conditional_generation(in, b, model, blocks::Scope(), "gemma3_text");
}

}  // namespace
}  // namespace gemma3_impl

const Family& gemma3_family() {
  static const Family family{"gemma3", "models/gemma3/modeling_gemma3.py",
                             classes("Gemma3", {heads::VisionLanguageGeneration, heads::ForSequenceClassification}),
                             gemma3_impl::build};
  return family;
}

}  // namespace neurarch::families
