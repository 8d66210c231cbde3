// SmolVLM's vision tower alone (SmolVLMVisionTransformer in models/smolvlm/modeling_smolvlm.py +
// configuration_smolvlm.py, transformers 4.57.6): a copy of Idefics3's,
// which is Idefics2's NaViT-style SigLIP tower (clip_common.hpp,
// navit_tower) with SmolVLMVisionConfig's defaults (1152 wide, 16 heads, 12 layers, 32-px patches, 224 px). It
// returns the post-layernormed patches; there is no pooling head. Any image size runs: positions are buckets of the
// (image_size / patch)^2 table.
#include "families/clip_common.hpp"

namespace neurarch::families {
namespace smolvlm_vision_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  return clip::navit_tower(in, b, in.config, blocks::Scope(),
                           {.hidden = 1152, .intermediate = 3072, .layers = 12, .heads = 16, .image_size = 224,
                            .patch = 32})
      .sequence;
}

}  // namespace
}  // namespace smolvlm_vision_impl

const Family& smolvlm_vision_family() {
  static const Family family{"smolvlm_vision", "models/smolvlm/modeling_smolvlm.py",
                             {{"SmolVLMVisionTransformer", Head::Base}}, smolvlm_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
