#pragma once
// 1-D convolutions over time (Whisper's and wav2vec2's audio front-ends, wav2vec2's positional
// convolution). Outputs are [frames, channels]: time-major like every token sequence, which is
// what the layers after the reference's transpose see.
#include <cstdint>
#include <string>

#include "blocks/blocks.hpp"

namespace neurarch::blocks {

/// How the convolution's input is laid out per sample.
enum class TimeLayout {
  TimeMajor,     ///< [frames, channels]: another convolution's or a layer's output
  ChannelsFirst, ///< [channels, frames]: Whisper's log-mel input_features
  Mono,          ///< [samples]: a raw waveform, one channel
};

struct Conv1dSpec {
  Scope module;  ///< nn.Conv1d: module.weight [out, in / groups, kernel], module.bias [out]
  std::int64_t in_channels = 1;
  std::int64_t out_channels = 1;
  std::int64_t kernel = 1;
  std::int64_t stride = 1;
  std::int64_t padding = 0;
  std::int64_t groups = 1;
  std::int64_t dilation = 1;  ///< the kernel spans dilation * (kernel - 1) + 1 frames (HiFi-GAN, DAC)
  bool bias = true;
  std::string activation;  ///< applied to the output (gelu after Whisper's convolutions); "glu" halves the channels
  /// true: the weight is declared by the caller (weight-normed convolutions name it differently).
  bool custom_weight = false;
};

/// Output frames of nn.Conv1d: floor((L + 2 padding - dilation (kernel - 1) - 1) / stride) + 1.
std::int64_t conv1d_frames(std::int64_t frames, std::int64_t kernel, std::int64_t stride, std::int64_t padding = 0,
                           std::int64_t dilation = 1);

Value conv1d(GraphBuilder& b, const Value& x, const std::string& name, const Conv1dSpec& spec,
             TimeLayout layout = TimeLayout::TimeMajor);

/// nn.BatchNorm1d over the channels of a time-major [frames, channels] sequence (the conformer's
/// convolution module): weight and bias, running_mean / running_var buffers in the model's dtype
/// and num_batches_tracked (I64 scalar). `activation` is applied to its output.
Value batch_norm1d(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                   const std::string& activation = "");

/// nn.GLU over the channels: [frames, 2C] -> [frames, C], first half times sigmoid(second half).
Value glu(GraphBuilder& b, const Value& x, const std::string& name);

}  // namespace neurarch::blocks
