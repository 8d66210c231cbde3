// InstructBLIP-Video (models/instructblipvideo/modeling_instructblipvideo.py, transformers 4.47.1): InstructBLIP
// with the same modules and names, run once per frame: pixel_values [frames, 3, H, W] go through the vision
// tower as a batch, the query tokens and the instruction are repeated for every frame through the Q-Former,
// and the frames' projected queries, one after another, fill frames x num_query_tokens image tokens of the
// prompt. The graph samples 4 frames, as the model card's example does; the frame count is not in the config.
#include <fmt/format.h>

#include "families/blip_common.hpp"

namespace neurarch::families {
namespace instructblipvideo_impl {
namespace {

constexpr std::int64_t kFrames = 4;

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  b.note(fmt::format("a video of {} frames (the model card's example): each frame runs the vision tower and the "
                     "Q-Former, and the prompt holds every frame's query outputs",
                     kFrames));
  return blip::instructed(in, b, kFrames);
}

}  // namespace
}  // namespace instructblipvideo_impl

const Family& instructblipvideo_family() {
  static const Family family{"instructblipvideo", "models/instructblipvideo/modeling_instructblipvideo.py",
                             {{"InstructBlipVideoForConditionalGeneration", Head::CausalLM}}, instructblipvideo_impl::build};
  return family;
}

}  // namespace neurarch::families
