// LLaVA-NeXT-Video (models/llava_next_video/modeling_llava_next_video.py, transformers 4.47.1): LLaVA-NeXT
// (anyres images, image_newline, the same module names) plus a video path whose frames go through the same
// tower and projector and a parameter-free spatial pooling (vision_resampler). The graph runs the image
// path (pixel_values), the one that holds the most tokens per visual input; a 672x672 photo writes 2928
// image tokens, which the prompt must hold. --image-size sets the (square) photo's side.
#include "families/llava_common.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  static const llava::AnyresModel model{
      .default_vision = {{"model_type", "clip_vision_model"}, {"intermediate_size", 4096}, {"hidden_size", 1024},
                         {"patch_size", 14}, {"image_size", 336}, {"num_hidden_layers", 24},
                         {"num_attention_heads", 16}, {"vocab_size", 32000}, {"projection_dim", 768}},
      .default_text_type = "llama",
      .default_pinpoints = {{336, 672}, {672, 336}, {672, 672}, {1008, 336}, {336, 1008}},
  };
  return llava::build_anyres(in, b, model);
}

}  // namespace

const Family& llava_next_video_family() {
  static const Family family{"llava_next_video", "models/llava_next_video/modeling_llava_next_video.py",
                             {{"LlavaNextVideoForConditionalGeneration", Head::CausalLM}}, build};
  return family;
}

}  // namespace neurarch::families
