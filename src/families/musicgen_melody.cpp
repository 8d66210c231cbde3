// MusicGen Melody (MusicgenMelodyForConditionalGeneration in models/musicgen_melody/modeling_musicgen_melody.py,
// transformers 4.47.1): MusicGen (musicgen.cpp) whose decoder layers have no encoder_attn; the text states
// (enc_to_dec_proj when the widths differ) and the conditioning audio's chroma (num_chroma bins over chroma_length
// frames, audio_enc_to_dec_proj when num_chroma is not the decoder's width) are concatenated in front of the
// codes, and the decoder runs causally over all of them.
#include "families/musicgen.hpp"

namespace neurarch::families {
namespace musicgen_melody_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return musicgen::model(in, b, musicgen::Conditioning::Prefix);
}

}  // namespace
}  // namespace musicgen_melody_impl

const Family& musicgen_melody_family() {
  static const Family family{"musicgen_melody", "models/musicgen_melody/modeling_musicgen_melody.py",
                             {{"MusicgenMelodyForConditionalGeneration", Head::CausalLM}}, musicgen_melody_impl::build};
  return family;
}

}  // namespace neurarch::families
