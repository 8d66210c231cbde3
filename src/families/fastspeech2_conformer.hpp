#pragma once
// FastSpeech2-Conformer's pieces that other families inherit (fastspeech2_conformer.cpp): its convolution
// module, which Parakeet's FastConformer subclasses unchanged, and the whole model, which the HiFi-GAN
// composite wraps.
#include <string>

#include "families/family.hpp"

namespace neurarch::families::fastspeech2 {

struct ConvModuleSpec {
  graph::Scope module;  ///< e.g. "encoder.conformer_layers.0.conv_module"
  std::int64_t channels = 0;
  std::int64_t kernel = 0;
  std::string activation = "silu";
  bool bias = true;  ///< FastSpeech2-Conformer's convs always have one; Parakeet's follow convolution_bias
};

/// FastSpeech2ConformerConvolutionModule over [frames, channels]: pointwise_conv1 (C -> 2C), GLU, depthwise_conv
/// (kernel, padded (kernel - 1) / 2), BatchNorm1d `norm`, the activation, pointwise_conv2. Nodes are labelled
/// with the layer index `i`.
graph::Value convolution_module(graph::GraphBuilder& b, const graph::Value& x, std::int64_t i,
                                const ConvModuleSpec& spec);

/// FastSpeech2ConformerModel of config `c`: phoneme ids -> the mel spectrogram after the postnet.
graph::Value model(const BuildInput& in, graph::GraphBuilder& b, const Config& c);

}  // namespace neurarch::families::fastspeech2
