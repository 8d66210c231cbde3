// InstructBlipVideoQFormerModel alone (models/instructblipvideo/modeling_instructblipvideo.py, transformers 5.24):
// InstructBLIP-Video's copy of InstructBLIP's (blip::instruction_qformer_model); built alone, one sample is one frame.
#include "families/blip_common.hpp"

namespace neurarch::families {

const Family& instructblipvideo_qformer_family() {
  static const Family family{"instructblipvideo_qformer", "models/instructblipvideo/modeling_instructblipvideo.py",
                             classes("InstructBlipVideoQFormer"), blip::instruction_qformer_model};
  return family;
}

}  // namespace neurarch::families
