// Gemma 4's audio tower (Gemma4AudioModel in models/gemma4/modeling_gemma4.py + configuration_gemma4.py,
// transformers 5.24.0), AutoModel's class for `gemma4_audio` and `audio_tower` of the whole model: a Universal
// Speech Model conformer like Gemma 3n's encoder (gemma3n_audio.cpp), written anew in Gemma 4 (its modular file
// derives none of it), with other module names and these differences:
// - sub-sampling: two Conv2d (3×3, stride 2, padding 1, no bias), each followed by a LayerNorm over the channels
//   (weight only) and ReLU; input_proj_linear reads (subsampling_conv_channels[0] // 4) × channels[1] features,
//   which is the flattened map for the feature extractor's 128 mel bins;
// - no frame reduction after the stack: the two strides already keep one frame in four;
// - relative positions through relative_k_proj, under self_attn;
// - output_proj (with bias) to output_proj_dims;
// - every linear but relative_k_proj is a Gemma4ClippableLinear (`.linear.weight`, and with use_clipped_linears,
//   default true, four scalar clipping bounds saved beside it).
// softcap and the timescales are non-persistent buffers: nothing is saved for them.
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "core/error.hpp"
#include "families/gemma4_towers.hpp"

namespace neurarch::families {
namespace gemma4 {

using namespace blocks;
using graph::NodeType;

namespace gemma4_audio_impl {
namespace {

struct AudioSpec {
  std::int64_t hidden = 0, heads = 0, layers = 0, kernel = 0, output = 0;
  std::int64_t context = 0;  ///< keys each query block scores
  std::vector<std::int64_t> channels;
  std::string activation;
  bool clipped = true;
};

AudioSpec read_spec(const Config& c) {
  AudioSpec s;
  s.hidden = c.dim({"hidden_size"}, 1024);
  s.heads = c.dim({"num_attention_heads"}, 8);
  s.layers = c.dim({"num_hidden_layers"}, 12);
  s.kernel = c.dim({"conv_kernel_size"}, 5);
  s.output = c.dim({"output_proj_dims"}, 1536);
  s.activation = c.text({"hidden_act"}, "silu");
  s.clipped = c.flag({"use_clipped_linears"}, true);
  const std::int64_t left = c.integer({"attention_context_left"}, 13);
  const std::int64_t right = c.integer({"attention_context_right"}, 0);
  s.context = c.dim({"attention_chunk_size"}, 12) + std::max<std::int64_t>(0, left - 1) +
              std::max<std::int64_t>(0, right);
  const auto* channels = c.raw({"subsampling_conv_channels"});
  if (!channels) {
    s.channels = {128, 32};
  } else {
    const auto bad = [&](const std::string& why) {
      return Error(ErrorKind::InvalidInput, fmt::format("{}: key 'subsampling_conv_channels'", c.origin()), why);
    };
    if (!channels->is_array() || channels->size() != 2) throw bad("expected the two convolutions' channel counts");
    for (const auto& v : *channels) {
      if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
        throw bad(fmt::format("expected positive integers, found {}", v.dump()));
      s.channels.push_back(v.get<std::int64_t>());
    }
  }
  return s;
}

Value rms_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module) {
  return norm(b, x, name, {module, NormKind::RMSNorm, false});
}

// One sub-sampling layer over a [channels, frames, frequencies] map: Conv2d(3, stride 2, padding 1), then a
// LayerNorm over the channels and ReLU.
Value subsample(GraphBuilder& b, const Value& x, std::size_t i, std::int64_t out_channels, const Scope& module) {
  constexpr std::int64_t kKernel = 3, kStride = 2, kPadding = 1;
  const std::int64_t in = x.shape[0], frames = x.shape[1], freqs = x.shape[2];
  const std::int64_t out_frames = (frames + 2 * kPadding - kKernel) / kStride + 1;
  const std::int64_t out_freqs = (freqs + 2 * kPadding - kKernel) / kStride + 1;
  auto conv = b.node(NodeType::Conv2d, fmt::format("Subsample_Conv_{}", i), {out_channels, out_frames, out_freqs},
                     {x}, module / "conv");
  b.at(conv).spatial = graph::SpatialAttrs{kKernel, kKernel, kStride, kPadding, 1, false};
  b.parameter(conv, (module / "conv")("weight"), {out_channels, in, kKernel, kKernel}, graph::TensorRole::Conv);
  if (frames + 2 * kPadding < kKernel || freqs + 2 * kPadding < kKernel)
    b.fail(conv, fmt::format("a {}x{} map is smaller than the {}x{} kernel", frames, freqs, kKernel, kKernel));
  auto normed =
      b.node(NodeType::LayerNorm, fmt::format("Subsample_Norm_{}", i), b.at(conv).out, {conv}, module / "norm");
  b.parameter(normed, (module / "norm")("weight"), {out_channels}, graph::TensorRole::Norm);
  b.at(normed).activation = "relu";
  return normed;
}

// Gemma4AudioFeedForward: RMSNorm, 4 × hidden MLP, RMSNorm, then residual + residual_weight × h.
Value feed_forward_half(GraphBuilder& b, const Value& x, std::int64_t i, int which, const Scope& l,
                        const AudioSpec& s) {
  const Scope m = l / fmt::format("feed_forward{}", which);
  const std::string label = fmt::format("FFN_{}_{}", which, i);
  auto h = rms_norm(b, x, label + "_Pre_RMSNorm", m / "pre_layer_norm");
  h = feed_forward(b, h, label,
                   {.hidden = s.hidden, .intermediate = 4 * s.hidden, .activation = s.activation, .gated = false,
                    .module = m, .up = m / "ffw_layer_1" / "linear", .down = m / "ffw_layer_2" / "linear",
                    .bias = false, .down_bias = false});
  clipping_bounds(b, h, m / "ffw_layer_1", s.clipped);
  clipping_bounds(b, h, m / "ffw_layer_2", s.clipped);
  h = rms_norm(b, h, label + "_Post_RMSNorm", m / "post_layer_norm");
  return add(b, h, x, label + "_Add");
}

Value attention_block(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const AudioSpec& s) {
  const Scope attn = l / "self_attn";
  const std::int64_t frames = x.shape.front(), head_dim = s.hidden / s.heads;
  auto normed = rms_norm(b, x, fmt::format("Attention_{}_Pre_RMSNorm", i), l / "norm_pre_attn");
  auto h = b.node(NodeType::MultiHeadAttention, BlockNames{i}.attention(), {frames, s.hidden}, {normed}, attn);
  // Blocks of attention_chunk_size queries each score a context of the chunk, the frames before it
  // (context_left - 1) and after it (context_right): that context is the attention's key length. The
  // reference computes the logits itself (eager only).
  b.at(h).attention =
      graph::AttentionAttrs{s.heads, s.heads, head_dim, frames, s.context, false, 0, 0.0, false, false};
  b.at(h).attention->sdpa = false;
  for (const char* p : {"q_proj", "k_proj", "v_proj"}) {
    linear_tensors(b, h, attn / p / "linear", s.hidden, s.heads * head_dim, false);
    clipping_bounds(b, h, attn / p, s.clipped);
  }
  linear_tensors(b, h, attn / "relative_k_proj", s.hidden, s.heads * head_dim, false, graph::Operand::Positions);
  b.parameter(h, attn("per_dim_scale"), {head_dim}, graph::TensorRole::Other);
  if (s.hidden % s.heads != 0)
    b.fail(h, fmt::format("hidden size {} not divisible by {} heads", s.hidden, s.heads));
  auto out = clippable_linear(b, h, fmt::format("Attention_{}_Post", i), attn / "post", s.hidden, s.hidden, s.clipped);
  out = rms_norm(b, out, fmt::format("Attention_{}_Post_RMSNorm", i), l / "norm_post_attn");
  return add(b, out, x, fmt::format("Attention_{}_Add", i));
}

Value light_conv(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const AudioSpec& s) {
  const Scope m = l / "lconv1d";
  const std::int64_t frames = x.shape.front();
  auto h = rms_norm(b, x, fmt::format("LConv_{}_Pre_RMSNorm", i), m / "pre_layer_norm");
  h = clippable_linear(b, h, fmt::format("LConv_{}_Start", i), m / "linear_start", s.hidden, 2 * s.hidden, s.clipped);
  h = glu(b, h, fmt::format("LConv_{}_GLU", i));
  // Causal: kernel - 1 frames of padding before, so the frames are kept.
  h = conv1d(b, h, fmt::format("LConv_{}_Depthwise", i),
             {.module = m / "depthwise_conv1d", .in_channels = s.hidden, .out_channels = s.hidden,
              .kernel = s.kernel, .stride = 1, .padding = 0, .groups = s.hidden, .bias = false});
  b.at(h).out.front() = frames;
  if (auto& conv = b.at(h).conv) {
    conv->padding = s.kernel - 1;
    conv->out_len = frames;
  }
  h = Value{h.node, {frames, s.hidden}};
  h = rms_norm(b, h, fmt::format("LConv_{}_RMSNorm", i), m / "conv_norm");
  // A parameter-free Linear node that only applies the activation, like the GLU's.
  h = b.node(NodeType::Linear, fmt::format("LConv_{}_Activation", i), {frames, s.hidden}, {h});
  b.at(h).activation = s.activation;
  h = clippable_linear(b, h, fmt::format("LConv_{}_End", i), m / "linear_end", s.hidden, s.hidden, s.clipped);
  return add(b, h, x, fmt::format("LConv_{}_Add", i));
}

}  // namespace
}  // namespace gemma4_audio_impl
using namespace gemma4_audio_impl;

Value audio_tower(GraphBuilder& b, const Config& c, std::int64_t frames) {
  const AudioSpec s = read_spec(c);
  auto x = b.input({frames, kMelBins}, "audio_features", "input_features");

  const Scope sscp("subsample_conv_projection");
  Value map{x.node, {1, frames, kMelBins}};  // one input channel
  map = subsample(b, map, 0, s.channels[0], sscp / "layer0");
  map = subsample(b, map, 1, s.channels[1], sscp / "layer1");
  const std::int64_t sub_frames = map.shape[1], flattened = map.shape[0] * map.shape[2];
  // The reference sizes input_proj_linear from the channels alone, for 128 mel bins.
  const std::int64_t expected = (s.channels[0] / 4) * s.channels[1];
  if (flattened != expected)
    b.fail(map, fmt::format("the sub-sampled map flattens to {} features, but input_proj_linear reads "
                            "(subsampling_conv_channels[0] // 4) x subsampling_conv_channels[1] = {}",
                            flattened, expected));
  x = dense(b, Value{map.node, {sub_frames, flattened}}, "Subsample_Projection", sscp / "input_proj_linear",
            expected, s.hidden, false);

  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("layers") / i;
    x = feed_forward_half(b, x, i, 1, l, s);
    x = attention_block(b, x, i, l, s);
    x = light_conv(b, x, i, l, s);
    x = feed_forward_half(b, x, i, 2, l, s);
    x = rms_norm(b, x, BlockNames{i}.norm(1, NormKind::RMSNorm), l / "norm_out");
  }
  b.set_block(-1);
  return dense(b, x, "Output_Projection", Scope("output_proj"), s.hidden, s.output, true);
}

}  // namespace gemma4

namespace gemma4_audio_impl {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  // --seq sets the log-mel frames (30 s at the feature extractor's 10 ms hop by default).
  return gemma4::audio_tower(b, in.config, in.requested_seq ? *in.requested_seq : gemma4::kDefaultAudioFrames);
}

}  // namespace
}  // namespace gemma4_audio_impl

const Family& gemma4_audio_family() {
  static const Family family{"gemma4_audio", "models/gemma4/modeling_gemma4.py",
                             {{"Gemma4AudioModel", Head::Base}}, gemma4_audio_impl::build};
  return family;
}

}  // namespace neurarch::families
