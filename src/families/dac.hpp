#pragma once
// DAC's convolutional encoder and decoder (dac.cpp), exported for X-Codec, whose acoustic model is a DacModel.
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::dac {

/// DacConfig's encoder / decoder keys and defaults.
struct Spec {
  std::int64_t encoder_dim = 64, decoder_dim = 1536, hidden = 1024;
  std::vector<std::int64_t> down{2, 4, 8, 8}, up{8, 8, 4, 2};
};
Spec read_spec(const Config& c);

/// `enc`.conv1, block.<i> (residual units, Snake, strided conv), snake1, conv2: [samples] -> [frames, hidden].
graph::Value encoder(graph::GraphBuilder& b, const graph::Value& wave, const Spec& s, const graph::Scope& enc);
/// `dec`.conv1, block.<i> (Snake, ConvTranspose1d, residual units), snake1, conv2 (tanh when `tanh`):
/// [frames, width] -> [samples, 1].
graph::Value decoder(graph::GraphBuilder& b, const graph::Value& latents, const Spec& s, const graph::Scope& dec,
                     bool tanh);

}  // namespace neurarch::families::dac
