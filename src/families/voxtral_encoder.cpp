// Voxtral's encoder (VoxtralEncoder in models/voxtral/modeling_voxtral.py, transformers 4.57.6): Whisper's
// encoder (whisper.cpp) with VoxtralEncoderConfig's names (hidden_size, intermediate_size, num_hidden_layers,
// num_attention_heads) and Whisper-large-v3's sizes. It builds an AvgPool1d, as Qwen2-Audio's does, but its
// forward never runs it (no tensors either way): 3000 mel frames -> 1500 audio states.
#include "families/voxtral_encoder.hpp"

namespace neurarch::families {
namespace voxtral_encoder_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) { return voxtral::encoder(in, b, in.config); }

}  // namespace
}  // namespace voxtral_encoder_impl
using namespace voxtral_encoder_impl;

namespace voxtral {

Value encoder(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const whisper::EncoderDims d = whisper::read_encoder(c, kEncoderDefaults);
  const Value x = whisper::encoder_layers(in, b, d, Scope());
  return norm(b, x, "Encoder_Final_LayerNorm", {Scope("layer_norm")});
}

}  // namespace voxtral

const Family& voxtral_encoder_family() {
  static const Family family{"voxtral_encoder", "models/voxtral/modeling_voxtral.py", {{"VoxtralEncoder", Head::Base}},
                             voxtral_encoder_impl::build};
  return family;
}

}  // namespace neurarch::families
