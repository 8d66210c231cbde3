#pragma once
// OWL-ViT's and OWLv2's open-vocabulary detector (models/owlvit/modeling_owlvit.py, models/owlv2/modeling_owlv2.py,
// transformers 4.47.1): the whole contrastive model under `owlvit`, run on one image and one text query; the
// vision tower's post_layernorm is applied again to every token, each patch token is multiplied by the class
// token and layer-normed (layer_norm), then per patch: class_head (dense0 to the text width, compared with the
// projected query by cosine similarity, shifted and scaled by logit_shift / logit_scale) and box_head (two GELU
// linears and a 4-wide one, plus the fixed box_bias). OWLv2 adds objectness_head, a 1-wide box head.
#include "families/clip_common.hpp"

namespace neurarch::families::owlvit {

/// OwlViTConfig's tower defaults: a 16-token causal text tower and a 768-pixel ViT-B/32 whose pre-layernorm is
/// spelled `pre_layernorm`. Owlv2Config's differ only in the 16-pixel patch.
inline constexpr clip::ClipDefaults kOwlvitDefaults{
    .image_size = 768, .patch = 32, .text_positions = 16, .pre_norm = "pre_layernorm"};
inline constexpr clip::ClipDefaults kOwlv2Defaults{
    .image_size = 768, .patch = 16, .text_positions = 16, .pre_norm = "pre_layernorm"};

clip::Value detector(const BuildInput& in, clip::GraphBuilder& b, const clip::ClipDefaults& defaults,
                     bool objectness);

}  // namespace neurarch::families::owlvit
