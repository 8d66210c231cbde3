// LLaVA-OneVision (models/llava_onevision/modeling_llava_onevision.py, transformers 4.57.6): LLaVA-NeXT's
// anyres with a SigLIP tower (384 px, 14-px patches, no pooling head, every token kept: "full") and a
// Qwen2 language model by default, 4.5x module names (`model.vision_tower`, `model.multi_modal_projector`,
// `model.image_newline`, `model.language_model` = the base decoder, `lm_head` at the top), and
// vision_aspect_ratio "anyres_max_N": a re-tiled map of more than N crops' worth of features is
// bilinearly downscaled to about N crops. The default input is the largest pinpoint, a 2304x2304 photo:
// 37 crops through the tower and 729 + 81 x 82 = 7371 image tokens, which the prompt must hold.
// --image-size sets the (square) photo's side.
#include "families/llava_common.hpp"

namespace neurarch::families {
namespace llava_onevision_impl {
namespace {

using namespace blocks;

nlohmann::json default_pinpoints() {
  nlohmann::json out = nlohmann::json::array();
  for (int i = 1; i <= 6; ++i)
    for (int j = 1; j <= 6; ++j) out.push_back({384 * i, 384 * j});
  return out;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  static const llava::AnyresModel model{
      .default_vision = {{"model_type", "siglip_vision_model"}, {"hidden_size", 1152}, {"intermediate_size", 4304},
                         {"patch_size", 14}, {"image_size", 384}, {"num_hidden_layers", 26},
                         {"num_attention_heads", 16}, {"vision_use_head", false}},
      .default_text_type = "qwen2",
      .default_pinpoints = default_pinpoints(),
      .default_feature_layer = -1,
      .default_strategy = "full",
      .read_max_crops = true,
      .layout = llava::Layout::Model,
  };
  return llava::build_anyres(in, b, model);
}

}  // namespace
}  // namespace llava_onevision_impl

const Family& llava_onevision_family() {
  static const Family family{"llava_onevision", "models/llava_onevision/modeling_llava_onevision.py",
                             classes("LlavaOnevision", {heads::VisionLanguageGeneration}), llava_onevision_impl::build};
  return family;
}

}  // namespace neurarch::families
