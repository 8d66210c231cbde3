#pragma once
// OWL-ViT's and OWLv2's open-vocabulary detector (models/owlvit/modeling_owlvit.py, models/owlv2/modeling_owlv2.py,
// transformers 4.47.1): the whole contrastive model under `owlvit`, run on one image and one text query; the
// vision tower's post_layernorm is applied again to every token, each patch token is multiplied by the class
// token and layer-normed (layer_norm), then per patch: class_head (dense0 to the text width, compared with the
// projected query by cosine similarity, shifted and scaled by logit_shift / logit_scale) and box_head (two GELU
// linears and a 4-wide one, plus the fixed box_bias). OWLv2 adds objectness_head, a 1-wide box head.
#include "families/clip_common.hpp"

namespace neurarch::families::owlvit {

clip::Value detector(const BuildInput& in, clip::GraphBuilder& b, const clip::ClipDefaults& defaults,
                     bool objectness);

}  // namespace neurarch::families::owlvit
