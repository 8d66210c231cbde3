// CLIPSeg (models/clipseg/modeling_clipseg.py, transformers 4.47.1): CLIPSegModel is CLIP's two towers, projections
// and 0-d logit_scale under CLIP's own defaults and module names (the vision tower's `pre_layrnorm` included).
// CLIPSegForImageSegmentation's FiLM-conditioned decoder (film_mul/film_add, reduces, decoder layers and the
// transposed-conv head over extract_layers' activations) is not built here: only the base class is registered.
#include "families/clip_common.hpp"

namespace neurarch::families {

const Family& clipseg_family() {
  static const Family family{"clipseg", "models/clipseg/modeling_clipseg.py", classes("CLIPSeg"), clip::clip_model};
  return family;
}

}  // namespace neurarch::families
