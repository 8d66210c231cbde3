// OWL-ViT (models/owlvit/modeling_owlvit.py, transformers 4.47.1): OwlViTModel is CLIP's two towers, projections
// and 0-d logit_scale under OWL-ViT's config defaults: a 16-token causal text tower and a 768-pixel ViT-B/32
// whose pre-layernorm is spelled `pre_layernorm`. The vision embeddings look positions up for the configured
// grid ((image_size / patch_size)^2 + 1 rows) and interpolate only when forward() asks.
#include "families/owlvit_common.hpp"

namespace neurarch::families {
namespace owlvit_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const clip::ClipDefaults& defaults = owlvit::kOwlvitDefaults;
  // The detector is registered under Head::PreTraining, as DETR's is: the Head list has no detection entry.
  if (in.head == Head::PreTraining) return owlvit::detector(in, b, defaults, false);
  return clip::clip_model(in, b, defaults);
}

}  // namespace
}  // namespace owlvit_impl

const Family& owlvit_family() {
  static const Family family{"owlvit", "models/owlvit/modeling_owlvit.py",
                             classes("OwlViT", {heads::ForObjectDetection}), owlvit_impl::build};
  return family;
}

}  // namespace neurarch::families
