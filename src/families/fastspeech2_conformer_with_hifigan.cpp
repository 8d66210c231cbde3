// FastSpeech2ConformerWithHifiGan (models/fastspeech2_conformer/modeling_fastspeech2_conformer.py, transformers
// 4.57.6): the acoustic model of model_config (fastspeech2_conformer.cpp) under `model` and the HiFi-GAN vocoder
// of vocoder_config (hifigan.cpp) under `vocoder`, turning the predicted mel frames into a waveform.
#include "families/fastspeech2_conformer.hpp"
#include "families/hifigan.hpp"

namespace neurarch::families {
namespace fastspeech2_conformer_with_hifigan_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config model_config = in.config.child("model_config");
  const Config vocoder_config = in.config.child("vocoder_config");
  Value mel;
  {
    graph::Nested nest(b, {.module = "model", .label = "", .first_block = 0});
    mel = fastspeech2::model(in, b, model_config);
  }
  graph::Nested nest(b, {.module = "vocoder", .label = "", .first_block = b.next_block()});
  return hifigan::vocoder(b, mel, vocoder_config);
}

}  // namespace
}  // namespace fastspeech2_conformer_with_hifigan_impl

const Family& fastspeech2_conformer_with_hifigan_family() {
  static const Family family{"fastspeech2_conformer_with_hifigan",
                             "models/fastspeech2_conformer/modeling_fastspeech2_conformer.py",
                             {{"FastSpeech2ConformerWithHifiGan", Head::Base}}, fastspeech2_conformer_with_hifigan_impl::build};
  return family;
}

}  // namespace neurarch::families
