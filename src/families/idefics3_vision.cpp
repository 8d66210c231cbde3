// Idefics3's vision tower alone (Idefics3VisionTransformer in models/idefics3/modeling_idefics3.py +
// configuration_idefics3.py, transformers 4.57.6): Idefics2's NaViT-style SigLIP tower (clip_common.hpp,
// navit_tower) with Idefics3VisionConfig's defaults (1152 wide, 16 heads, 12 layers, 32-px patches, 224 px). It
// returns the post-layernormed patches; there is no pooling head. Any image size runs: positions are buckets of the
// (image_size / patch)^2 table.
#include "families/idefics3_vision.hpp"

namespace neurarch::families {

const clip::NavitDefaults& idefics3_vision_defaults() {
  static const clip::NavitDefaults defaults{
      .hidden = 1152, .intermediate = 3072, .layers = 12, .heads = 16, .image_size = 224, .patch = 32};
  return defaults;
}

namespace idefics3_vision_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  return clip::navit_tower(in, b, in.config, blocks::Scope(), idefics3_vision_defaults()).sequence;
}

}  // namespace
}  // namespace idefics3_vision_impl

const Family& idefics3_vision_family() {
  static const Family family{"idefics3_vision", "models/idefics3/modeling_idefics3.py",
                             {{"Idefics3VisionTransformer", Head::Base}}, idefics3_vision_impl::build};
  return family;
}

}  // namespace neurarch::families
