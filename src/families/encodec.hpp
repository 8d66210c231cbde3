#pragma once
// EnCodec (encodec.cpp), exported for MusicGen, whose audio_encoder is an EncodecModel, and its SEANet
// encoder / decoder for Mimi, which keeps them (plain convs, no LSTM) around its transformers.
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::encodec {

/// How each SEANet convolution is normalised.
enum class ConvNorm {
  WeightNorm,  ///< torch.nn.utils.weight_norm: conv.weight_g / conv.weight_v (EnCodec's default)
  GroupNorm,   ///< GroupNorm(1, out) after the conv, `.norm` (EnCodec's time_group_norm)
  None,        ///< a plain conv (Mimi)
};

/// The SEANet stacks' shape (EncodecConfig's keys and defaults).
struct Seanet {
  std::int64_t channels = 1, hidden = 128, filters = 32, residual_layers = 1, kernel = 7, last_kernel = 7;
  std::int64_t residual_kernel = 3, growth = 2, compress = 2;
  std::int64_t lstm_layers = 2;  ///< 0: no LSTM after the last downsampling / before the first upsampling
  std::vector<std::int64_t> ratios{8, 5, 4, 2};
  ConvNorm norm = ConvNorm::WeightNorm;
  bool shortcut = true;  ///< use_conv_shortcut: a kernel-1 conv on each residual block's skip
};

/// The encoder's ModuleList under `layers` (with its ELUs counted): [samples, channels] -> [frames, hidden],
/// frames = ceil(samples / prod(ratios)).
graph::Value seanet_encoder(graph::GraphBuilder& b, const graph::Value& samples, const Seanet& s,
                            const graph::Scope& layers);
/// The mirrored decoder: [frames, hidden] -> [frames * prod(ratios), channels].
graph::Value seanet_decoder(graph::GraphBuilder& b, const graph::Value& latents, const Seanet& s,
                            const graph::Scope& layers);
/// One SEANet conv at `module` (`module.conv`, and `module.norm` under GroupNorm): ceil(L / stride) frames.
graph::Value conv(graph::GraphBuilder& b, const graph::Value& x, const std::string& name, const graph::Scope& module,
                  const Seanet& s, std::int64_t in, std::int64_t out, std::int64_t kernel, std::int64_t stride = 1,
                  bool bias = true);
/// One SEANet transposed conv at `module`: L * stride frames.
graph::Value conv_transpose(graph::GraphBuilder& b, const graph::Value& x, const std::string& name,
                            const graph::Scope& module, const Seanet& s, std::int64_t in, std::int64_t out,
                            std::int64_t kernel, std::int64_t stride, std::int64_t groups = 1, bool bias = true);

/// EncodecModel of config `c` under the caller's scope: a waveform [samples * audio_channels] -> the decoded
/// waveform, through the encoder, the residual vector quantizer and the decoder.
graph::Value model(const BuildInput& in, graph::GraphBuilder& b, const Config& c);

}  // namespace neurarch::families::encodec
