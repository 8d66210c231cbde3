#pragma once
// Token mixing by a parameter-free 2-D discrete Fourier transform (Lee-Thorp et al., "FNet: Mixing Tokens with
// Fourier Transforms", arXiv:2105.03824; transformers' FNetBasicFourierTransform): the real part of the FFT over the
// hidden axis and then the sequence axis. One NodeType::FourierMixer node, owning no tensors; the planner's rules
// for it (nothing kept for backward, FFT FLOPs) live in plan/ops/fourier_mixer.cpp.
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

/// [seq, hidden] -> Re(FFT2(x)) of the same shape, under `module` (e.g. "encoder.layer.0.fourier").
/// Fails on anything but a [seq, hidden] stream: the transform runs over exactly those two axes.
Value fourier_mixer(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module);

}  // namespace neurarch::blocks
