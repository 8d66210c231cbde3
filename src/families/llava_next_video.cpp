// LLaVA-NeXT-Video (models/llava_next_video/modeling_llava_next_video.py, transformers 4.47.1): LLaVA-NeXT
// (anyres images, image_newline, the same module names) plus a video path whose frames go through the same
// tower and projector and a parameter-free spatial pooling (vision_resampler). The graph runs the image
// path (pixel_values), the one that holds the most tokens per visual input; a 672x672 photo writes 2928
// image tokens, which the prompt must hold. --image-size sets the (square) photo's side.
#include "families/llava_common.hpp"

namespace neurarch::families {
namespace llava_next_video_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  static const llava::AnyresModel model = llava::llava_next_defaults();
  return llava::build_anyres(in, b, model);
}

}  // namespace
}  // namespace llava_next_video_impl

const Family& llava_next_video_family() {
  static const Family family{"llava_next_video", "models/llava_next_video/modeling_llava_next_video.py",
                             {{"LlavaNextVideoForConditionalGeneration", Head::CausalLM}}, llava_next_video_impl::build};
  return family;
}

}  // namespace neurarch::families
