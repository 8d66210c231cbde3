#pragma once
// Gemma 4's vision and audio towers (gemma4_vision.cpp, gemma4_audio.cpp) and the embedder that writes their
// soft tokens into the language model's width (Gemma4MultimodalEmbedder), shared by the standalone towers
// (gemma4_vision, gemma4_audio) and the whole model (gemma4.cpp).
#include <cstdint>

#include "families/family.hpp"

namespace neurarch::families::gemma4 {

/// The image processor's default soft tokens per image (Gemma4ImageProcessor.max_soft_tokens).
inline constexpr std::int64_t kDefaultImageTokens = 280;
/// The feature extractor's mel bins (Gemma4AudioFeatureExtractor.feature_size) and 30 s of its 10 ms frames.
inline constexpr std::int64_t kMelBins = 128;
inline constexpr std::int64_t kDefaultAudioFrames = 3000;

/// Gemma4VisionModel of `c` under the current nest: `soft_tokens` × pooling_kernel_size² patches in, the
/// pooled (and, with `standardize`, standardized) soft tokens out, [soft_tokens, hidden_size].
blocks::Value vision_tower(blocks::GraphBuilder& b, const Config& c, std::int64_t soft_tokens);

/// Gemma4AudioModel of `c` under the current nest: `frames` log-mel frames in, [frames / 4, output_proj_dims] out.
blocks::Value audio_tower(blocks::GraphBuilder& b, const Config& c, std::int64_t frames);

/// Gemma4MultimodalEmbedder under `module`: a scale-free RMSNorm over the tower's width, then
/// embedding_projection to `text_hidden` (no bias).
blocks::Value embed(blocks::GraphBuilder& b, const blocks::Value& features, std::int64_t text_hidden,
                    const blocks::Scope& module, const std::string& label);

/// Gemma4ClippableLinear under `module`: `module.linear.weight` and, with use_clipped_linears, the four scalar
/// clipping bounds (input_min/max, output_min/max), persistent buffers in the model's dtype.
blocks::Value clippable_linear(blocks::GraphBuilder& b, const blocks::Value& x, const std::string& name,
                               const blocks::Scope& module, std::int64_t in, std::int64_t out, bool clipped,
                               const std::string& activation = "");
/// The clipping bounds alone, on `owner` (for projections owned by an attention or MLP node).
void clipping_bounds(blocks::GraphBuilder& b, const blocks::Value& owner, const blocks::Scope& module, bool clipped);

}  // namespace neurarch::families::gemma4
