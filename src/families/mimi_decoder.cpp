// Mimi's decoder on its own (MimiDecoderModel in models/mimi/modeling_mimi.py, transformers 5.24.0): latent frames
// through upsample, decoder_transformer and the SEANet decoder back to a waveform, no quantizer (mimi.hpp);
// MimiDecoderConfig repeats MimiConfig's defaults.
#include "families/mimi.hpp"

namespace neurarch::families {

const Family& mimi_decoder_family() {
  static const Family family{"mimi_decoder", "models/mimi/modeling_mimi.py", {{"MimiDecoderModel", Head::Base}},
                             mimi::decoder_model};
  return family;
}

}  // namespace neurarch::families
