// Mimi's encoder on its own (MimiEncoderModel in models/mimi/modeling_mimi.py, transformers 5.24.0): the waveform
// through the SEANet encoder, encoder_transformer and downsample to the continuous latents, no quantizer
// (mimi.hpp); MimiEncoderConfig repeats MimiConfig's defaults.
#include "families/mimi.hpp"

namespace neurarch::families {

const Family& mimi_encoder_family() {
  static const Family family{"mimi_encoder", "models/mimi/modeling_mimi.py", {{"MimiEncoderModel", Head::Base}},
                             mimi::encoder_model};
  return family;
}

}  // namespace neurarch::families
