// Qwen2-Audio's encoder (Qwen2AudioEncoder in models/qwen2_audio/modeling_qwen2_audio.py, transformers 4.47.1):
// Whisper's encoder (whisper.cpp: conv1, conv2, the frozen embed_positions table, pre-norm layers with k_proj
// unbiased) whose layers' output is average-pooled two frames into one (nn.AvgPool1d(2, stride=2): no tensors)
// before the final layer_norm: 3000 mel frames -> 1500 -> 750 audio features.
#include "families/qwen2_audio_encoder.hpp"

#include <fmt/format.h>

namespace neurarch::families {
namespace qwen2_audio_encoder_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) { return qwen2_audio::encoder(in, b, in.config); }

}  // namespace
}  // namespace qwen2_audio_encoder_impl
using namespace qwen2_audio_encoder_impl;

namespace qwen2_audio {

Value encoder(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const whisper::EncoderDims d = whisper::read_encoder(c, kEncoderDefaults);
  const Value x = whisper::encoder_layers(in, b, d, Scope());
  const std::int64_t frames = x.shape.front();
  // The pool runs channels-first (the reference permutes around it): a 1 x 2 window over [d_model, 1, frames].
  auto pooled = b.node(graph::NodeType::Pool, "Avg_Pooler", {d.d_model, 1, frames / 2},
                       {Value{x.node, {d.d_model, 1, frames}}});
  b.at(pooled).spatial = graph::SpatialAttrs{1, 2, 2, 0, 1, false};
  if (frames < 2) b.fail(pooled, fmt::format("{} frames cannot be pooled two by two", frames));
  return norm(b, Value{pooled.node, {frames / 2, d.d_model}}, "Encoder_Final_LayerNorm", {Scope("layer_norm")});
}

}  // namespace qwen2_audio

const Family& qwen2_audio_encoder_family() {
  static const Family family{"qwen2_audio_encoder", "models/qwen2_audio/modeling_qwen2_audio.py",
                             {{"Qwen2AudioEncoder", Head::Base}}, qwen2_audio_encoder_impl::build};
  return family;
}

}  // namespace neurarch::families
