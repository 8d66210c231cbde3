// Video-LLaVA (models/video_llava/modeling_video_llava.py, transformers 4.47.1): LLaVA with two vision towers
// of the same vision_config (CLIP ViT-L/14 at 224 px when absent), `image_tower` for photos and `video_tower`
// for the frames of a video, one two-layer projector (linear_1 -> projector_hidden_act -> linear_2, with
// biases) shared by both, and the causal LM of text_config under `language_model` (4.47.1's layout). Photos
// lose the class token under the "default" strategy; video frames keep it, so a frame writes one token more.
// The graph runs one photo and one video together (the reference accepts both in one prompt), so every tower
// weight is used: the video has video_seq_length / (tokens per frame) frames (8 by default: 2056 tokens).
#include <fmt/format.h>

#include "families/llava_common.hpp"

namespace neurarch::families {
namespace video_llava_impl {
namespace {

using namespace blocks;

// VideoLlavaConfig's vision_config when absent.
const nlohmann::json& clip_vit_l14_224() {
  static const nlohmann::json tower = [] {
    nlohmann::json t = llava::clip_vit_l14_336();
    t["image_size"] = 224;
    return t;
  }();
  return tower;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const llava::Parts p = llava::read_parts(c, clip_vit_l14_224(), "llama");
  const auto layers = llava::feature_layers(c, "vision_feature_layer", {-2});
  const bool drop_first = llava::drops_first_token(c, "default");
  const std::int64_t side = p.vision.dim({"image_size"}, 224) / p.vision.dim({"patch_size"}, 32);
  const std::int64_t frame_tokens = side * side + 1;  // a frame keeps CLIP's class token
  const std::int64_t video_tokens = c.dim({"video_seq_length"}, 2056);
  const std::int64_t frames = video_tokens % frame_tokens == 0 ? video_tokens / frame_tokens : 8;

  const auto image = llava::vision_features(in, b, c, p, layers, drop_first, 1,
                                            {.module = "image_tower", .label = "Image_", .first_block = 0});
  const auto video = llava::vision_features(in, b, c, p, layers, false, frames,
                                            {.module = "video_tower", .label = "Video_", .first_block = b.next_block()});
  const std::int64_t photo_rows = image.features.shape[image.features.shape.size() - 2];
  const std::int64_t frame_rows = video.features.shape[video.features.shape.size() - 2];
  const std::int64_t features = photo_rows + frames * frame_rows;
  b.note(fmt::format("one photo ({} image tokens) and one video of {} frames ({} video tokens) run together; both "
                     "towers' features go through the one projector",
                     photo_rows, frames, frames * frame_rows));

  // The projector runs over the photo's and the frames' features alike: one node reading both towers.
  llava::VisionFeatures both = image;
  both.picked.insert(both.picked.end(), video.picked.begin(), video.picked.end());
  both.features = Value{image.features.node, {features, image.width}};
  const std::int64_t text_hidden = llava::text_width(in, p);
  auto x = llava::two_layer_projector(b, both.features, both, Scope("multi_modal_projector"), text_hidden, true,
                                      c.text({"projector_hidden_act"}, "gelu"));
  const std::int64_t seq = llava::prompt_length(in, b, p.text, features);
  auto logits = llava::language_model(in, b, p, llava::Layout::Legacy, seq);
  llava::scatter_into_prompt(b, x, features);
  return logits;
}

}  // namespace
}  // namespace video_llava_impl

const Family& video_llava_family() {
  static const Family family{"video_llava", "models/video_llava/modeling_video_llava.py",
                             {{"VideoLlavaForConditionalGeneration", Head::CausalLM}}, video_llava_impl::build};
  return family;
}

}  // namespace neurarch::families
