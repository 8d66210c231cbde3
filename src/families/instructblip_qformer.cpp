// InstructBlipQFormerModel alone (models/instructblip/modeling_instructblip.py, transformers 5.24): the Q-Former with
// its instruction embeddings over a vision tower's image tokens (blip::instruction_qformer_model).
#include "families/blip_common.hpp"

namespace neurarch::families {

const Family& instructblip_qformer_family() {
  static const Family family{"instructblip_qformer", "models/instructblip/modeling_instructblip.py",
                             classes("InstructBlipQFormer"), blip::instruction_qformer_model};
  return family;
}

}  // namespace neurarch::families
