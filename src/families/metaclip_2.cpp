// MetaCLIP 2 (models/metaclip_2/modeling_metaclip_2.py, transformers 4.57.6): CLIP's architecture under its
// own class names, with CLIP's config defaults (512-wide causal text tower over 49408 tokens and 77 positions,
// 768-wide ViT-B/32 at 224 pixels, projection_dim 512). Its text tower pools the first eos_token_id token
// rather than the argmax id, which changes no tensor and no shape.
#include "families/clip_common.hpp"

namespace neurarch::families {

const Family& metaclip_2_family() {
  static const Family family{"metaclip_2", "models/metaclip_2/modeling_metaclip_2.py",
                             classes("MetaClip2", {heads::ForImageClassification}), clip::clip_model};
  return family;
}

}  // namespace neurarch::families
