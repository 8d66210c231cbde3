// CLIP (models/clip/modeling_clip.py, transformers 4.47.1): a causal text transformer and a ViT with a
// class token, each projected (bias-free) to projection_dim and compared by a scaled cosine similarity;
// logit_scale is a 0-d parameter. text_config / vision_config fall back to the tower defaults when absent.
// CLIPForImageClassification keeps only the vision tower and classifies the mean of the patch tokens of
// last_hidden_state (the class token and the post-layernormed pooled output are left out).
#include "families/clip_common.hpp"

namespace neurarch::families {

const Family& clip_family() {
  static const Family family{"clip", "models/clip/modeling_clip.py",
                             classes("CLIP", {heads::ForImageClassification}), clip::clip_model};
  return family;
}

}  // namespace neurarch::families
