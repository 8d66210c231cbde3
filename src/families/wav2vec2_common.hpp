#pragma once
// The wav2vec2 speech encoder shared by wav2vec2, HuBERT and their descendants (UniSpeech(-SAT),
// WavLM, data2vec-audio, wav2vec2-conformer, SEW, SEW-D): a raw waveform [samples] through a
// stack of strided 1-D convolutions (conv_dim / conv_kernel / conv_stride; each layer gives
// floor((L - kernel) / stride) + 1 frames), a feature projection to hidden_size, a grouped
// positional convolution under weight norm (weight_g / weight_v) added to the frames, and a
// post-norm transformer (or pre-norm with do_stable_layer_norm); Encoder and PositionalConv name
// the descendants' variations, and an optional adapter (add_adapter) shortens the frames.
#include <optional>
#include <string_view>
#include <vector>

#include "families/family.hpp"

namespace neurarch::families::wav2vec2 {

/// What follows the feature projection.
enum class Encoder {
  Transformer,  ///< post-norm layers, or pre-norm ones under do_stable_layer_norm
  Conformer,    ///< wav2vec2-conformer: conformer layers, then the encoder's LayerNorm
  /// WavLM: Transformer layers whose attention adds a bucketed relative-position bias (rel_attn_embed,
  /// layer 0 only, shared by every layer) gated per head from the queries (gru_rel_pos_linear/_const).
  WavLM,
  /// SEW: a top-level LayerNorm and a projection only when conv_dim[-1] != hidden_size; the encoder
  /// average-pools the frames by squeeze_factor and adds a positional conv strided by it, runs
  /// post-norm layers, then upsamples (Linear to squeeze_factor x hidden, reshaped) back to the
  /// input frames.
  Squeezed,
  /// SEW-D: SEW's squeeze and upsampling around DeBERTa-v2's encoder (disentangled attention over a
  /// shared relative table) at encoder.encoder, with no LayerNorm before it.
  SqueezedDeberta,
};

/// The positional convolution added to the projected frames.
enum class PositionalConv {
  WeightNormed,  ///< one grouped conv of num_conv_pos_embeddings under weight norm (weight_g / weight_v)
  Stacked,       ///< data2vec-audio: num_conv_pos_embeddings plain grouped convs of conv_pos_kernel_size,
                 ///< each followed by a LayerNorm without affine parameters and the activation
};

/// Default conv_dim / conv_kernel / conv_stride of a config class.
struct ConvStack {
  std::vector<std::int64_t> dims, kernels, strides;
};

/// SEW's and SEW-D's thirteen feature convs.
const ConvStack& squeezed_conv_stack();

struct Layout {
  std::string_view prefix;                   ///< the base model's attribute in head classes
  bool projection_norm_from_config = false;  ///< HuBERT: feat_proj_layer_norm switches the projection's norm
  Encoder encoder = Encoder::Transformer;
  PositionalConv positional = PositionalConv::WeightNormed;
  /// data2vec-audio: every feature conv has a LayerNorm and feat_extract_norm is not read.
  bool every_conv_normed = false;
  /// The config class has do_stable_layer_norm (data2vec-audio's and the conformer's do not).
  bool stable_option = true;
  const ConvStack* conv_defaults = nullptr;  ///< nullptr: wav2vec2's seven convs
  /// vocab_size's default; nullopt where the config class defaults it to None (ForCTC then refuses).
  std::optional<std::int64_t> vocab_default = 32;
};

/// The classes' heads on the encoder's [frames, hidden] output: ForCTC (CausalLM) and the
/// deprecated ForMaskedLM put lm_head on every frame; sequence classification projects to
/// classifier_proj_size (default `projection_default`) and mean-pools. `layers` sizes
/// use_weighted_layer_sum's layer_weights.
graph::Value heads(const BuildInput& in, graph::GraphBuilder& b, const graph::Value& x, std::int64_t hidden,
                   std::int64_t layers, std::int64_t projection_default = 256,
                   std::optional<std::int64_t> vocab_default = 32);

/// 16000 samples: one second at the 16 kHz every wav2vec2 feature extractor expects.
inline constexpr std::int64_t kDefaultSamples = 16000;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Layout& layout);

}  // namespace neurarch::families::wav2vec2
