#pragma once
// The HiFi-GAN vocoder of FastSpeech2-Conformer and SpeechT5 (FastSpeech2ConformerHifiGan / SpeechT5HifiGan):
// a log-mel spectrogram [frames, model_in_dim] -> a waveform, built under the caller's scope.
#include "families/family.hpp"

namespace neurarch::families::hifigan {

/// conv_pre (kernel 7), then per upsample rate a LeakyReLU, a ConvTranspose1d (`upsampler.<i>`, kernel
/// upsample_kernel_sizes[i], padding (kernel - rate) / 2) halving the channels and the mean of
/// len(resblock_kernel_sizes) residual blocks (`resblocks.<i * kernels + j>`: per dilation a LeakyReLU, a dilated
/// conv `convs1.<k>`, a LeakyReLU, a conv `convs2.<k>`, a residual sum); then LeakyReLU, conv_post to one channel,
/// tanh. The `mean` / `scale` buffers (normalize_before) are saved whatever the flag says.
graph::Value vocoder(graph::GraphBuilder& b, const graph::Value& spectrogram, const Config& c);

}  // namespace neurarch::families::hifigan
