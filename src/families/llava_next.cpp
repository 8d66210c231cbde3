// LLaVA-NeXT (models/llava_next/modeling_llava_next.py, transformers 4.47.1): LLaVA with "anyres" images.
// The processor resizes the photo to the image_grid_pinpoints entry that keeps most of it, cuts that into
// crops of the tower's image_size and adds the whole photo downscaled to one crop; the tower and the
// projector run over all crops at once. The crops' features are re-tiled into one map, unpadded back to the
// photo's aspect ratio, and a learned `image_newline` closes every row; the whole view's features go first.
// A 672x672 photo (the largest default pinpoint, our default input) runs 5 crops and writes
// 576 + 48 x 49 = 2928 image tokens, which the prompt must hold. --image-size sets the (square) photo's side.
#include "families/llava_common.hpp"

namespace neurarch::families {
namespace llava_next_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  static const llava::AnyresModel model = llava::llava_next_defaults();
  return llava::build_anyres(in, b, model);
}

}  // namespace
}  // namespace llava_next_impl

const Family& llava_next_family() {
  static const Family family{"llava_next", "models/llava_next/modeling_llava_next.py",
                             {{"LlavaNextForConditionalGeneration", Head::CausalLM}}, llava_next_impl::build};
  return family;
}

}  // namespace neurarch::families
