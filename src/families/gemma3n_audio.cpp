// Gemma 3n's audio encoder (Gemma3nAudioEncoder in models/gemma3n/modeling_gemma3n.py + configuration_gemma3n.py;
// tensors as 4.57.6 saves them, which the shared ground truth holds): a Universal Speech Model conformer over
// log-mel frames [frames, input_feat_size].
// - Sub-sampling: two bias-free Conv2d over (time, frequency), padded by hand (time: kernel - 1 after, frequency:
//   one each side), each followed by a cumulative group norm (a [channels] weight) and ReLU; the channels x
//   frequencies are flattened into input_proj_linear.
// - Each conformer block: a half-step feed-forward (RMSNorm, 4 x hidden SiLU MLP, RMSNorm), chunked local
//   self-attention (q/k/v, a learned per_dim_scale, relative positions through pos_proj; its output projection
//   `post` and post_norm sit outside `attn`), a light convolution (RMSNorm, linear_start to 2 x hidden, GLU,
//   causal depthwise conv1d, RMSNorm, SiLU, linear_end), a second half-step feed-forward and a final RMSNorm.
// - Every conf_reduction_factor-th frame is kept at the end. The clipping bounds, masks and timescales are
//   non-persistent buffers: none is saved.
// Frames default to 3,000 (30 s at the feature extractor's 10 ms hop); --seq sets them.
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "core/error.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace gemma3n_audio_impl {
namespace {

using namespace blocks;
using graph::NodeType;

constexpr std::int64_t kDefaultFrames = 3000;

struct AudioSpec {
  std::int64_t hidden = 0, heads = 0, layers = 0, features = 0, kernel = 0, reduction = 0;
  std::int64_t context = 0;  ///< keys each query block scores
  std::vector<std::int64_t> channels;
  std::vector<std::pair<std::int64_t, std::int64_t>> kernels, strides;  // (time, frequency)
};

std::vector<std::pair<std::int64_t, std::int64_t>> pairs(const Config& c, std::string_view key,
                                                         std::size_t count, std::int64_t fallback) {
  std::vector<std::pair<std::int64_t, std::int64_t>> out(count, {fallback, fallback});
  const auto* listed = c.raw({key});
  if (!listed) return out;
  auto bad = [&]() {
    return Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                 fmt::format("expected {} [time, frequency] pairs of positive integers", count));
  };
  if (!listed->is_array() || listed->size() != count) throw bad();
  for (std::size_t i = 0; i < count; ++i) {
    const auto& p = (*listed)[i];
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_integer() || !p[1].is_number_integer() ||
        p[0].get<std::int64_t>() <= 0 || p[1].get<std::int64_t>() <= 0)
      throw bad();
    out[i] = {p[0].get<std::int64_t>(), p[1].get<std::int64_t>()};
  }
  return out;
}

AudioSpec read_spec(const Config& c) {
  AudioSpec s;
  s.hidden = c.dim({"hidden_size"}, 1536);
  s.heads = c.dim({"conf_num_attention_heads"}, 8);
  s.layers = c.dim({"conf_num_hidden_layers"}, 12);
  s.features = c.dim({"input_feat_size"}, 128);
  s.kernel = c.dim({"conf_conv_kernel_size"}, 5);
  s.reduction = c.dim({"conf_reduction_factor"}, 4);
  const std::int64_t left = c.integer({"conf_attention_context_left"}, 13);
  const std::int64_t right = c.integer({"conf_attention_context_right"}, 0);
  s.context = c.dim({"conf_attention_chunk_size"}, 12) + std::max<std::int64_t>(0, left - 1) +
              std::max<std::int64_t>(0, right);
  const auto* channels = c.raw({"sscp_conv_channel_size"});
  if (!channels) {
    s.channels = {128, 32};
  } else {
    if (!channels->is_array() || channels->size() != 2)
      throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'sscp_conv_channel_size'", c.origin()),
                  "expected the two convolutions' channel counts");
    for (const auto& v : *channels) {
      if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
        throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'sscp_conv_channel_size'", c.origin()),
                    fmt::format("expected positive integers, found {}", v.dump()));
      s.channels.push_back(v.get<std::int64_t>());
    }
  }
  s.kernels = pairs(c, "sscp_conv_kernel_size", 2, 3);
  s.strides = pairs(c, "sscp_conv_stride_size", 2, 2);
  return s;
}

Value rms_norm(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module) {
  return norm(b, x, name, {module, NormKind::RMSNorm, false});
}

// One sub-sampling block over a [channels, frames, frequencies] map.
Value subsample(GraphBuilder& b, const Value& x, std::size_t i, const AudioSpec& s, const Scope& module) {
  const auto [kt, kf] = s.kernels[i];
  const auto [st, sf] = s.strides[i];
  const std::int64_t in = x.shape[0], frames = x.shape[1], freqs = x.shape[2], out_channels = s.channels[i];
  // Time is padded by kernel - 1 after the frames, frequency by one each side.
  const std::int64_t out_frames = (frames + kt - 1 - kt) / st + 1;
  const std::int64_t out_freqs = (freqs + 2 - kf) / sf + 1;
  auto conv = b.node(NodeType::Conv2d, fmt::format("Subsample_Conv_{}", i), {out_channels, out_frames, out_freqs},
                     {x}, module / "conv");
  b.at(conv).spatial = graph::SpatialAttrs{kt, kf, st, 1, 1, false};
  b.parameter(conv, (module / "conv")("weight"), {out_channels, in, kt, kf}, graph::TensorRole::Conv);
  if (out_frames < 1 || out_freqs < 1)
    b.fail(conv, fmt::format("a {}x{} map is smaller than the {}x{} kernel", frames, freqs, kt, kf));
  // The cumulative group norm keeps running statistics over time; like a LayerNorm it keeps its input and
  // per-position statistics, then ReLU.
  auto normed =
      b.node(NodeType::LayerNorm, fmt::format("Subsample_Norm_{}", i), b.at(conv).out, {conv}, module / "norm");
  b.parameter(normed, (module / "norm")("weight"), {out_channels}, graph::TensorRole::Norm);
  b.at(normed).activation = "relu";
  return normed;
}

Value feed_forward_half(GraphBuilder& b, const Value& x, std::int64_t i, const std::string& which, const Scope& l,
                        const AudioSpec& s) {
  const Scope m = l / which;
  auto h = rms_norm(b, x, fmt::format("FFN_{}_{}_Pre_RMSNorm", which == "ffw_layer_start" ? "Start" : "End", i),
                    m / "pre_layer_norm");
  h = feed_forward(b, h, fmt::format("FFN_{}_{}", which == "ffw_layer_start" ? "Start" : "End", i),
                   {.hidden = s.hidden, .intermediate = 4 * s.hidden, .activation = "silu", .gated = false,
                    .module = m, .up = m / "ffw_layer_1", .down = m / "ffw_layer_2", .bias = false,
                    .down_bias = false});
  h = rms_norm(b, h, fmt::format("FFN_{}_{}_Post_RMSNorm", which == "ffw_layer_start" ? "Start" : "End", i),
               m / "post_layer_norm");
  // x + 0.5 * h
  return add(b, h, x, fmt::format("FFN_{}_{}_Add", which == "ffw_layer_start" ? "Start" : "End", i));
}

Value attention_block(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const AudioSpec& s) {
  const Scope m = l / "attention";
  const Scope attn = m / "attn";
  const std::int64_t frames = x.shape.front(), head_dim = s.hidden / s.heads;
  auto normed = rms_norm(b, x, fmt::format("Attention_{}_Pre_RMSNorm", i), m / "pre_attn_norm");
  auto h = b.node(NodeType::MultiHeadAttention, BlockNames{i}.attention(), {frames, s.hidden}, {normed}, attn);
  // Blocks of conf_attention_chunk_size queries each score a context of the chunk, the frames before it
  // (context_left - 1) and after it (context_right): that context is the attention's key length. The
  // reference computes the logits itself (no SDPA path).
  b.at(h).attention =
      graph::AttentionAttrs{s.heads, s.heads, head_dim, frames, s.context, false, 0, 0.0, false, false};
  b.at(h).attention->sdpa = false;
  for (const char* p : {"q_proj", "k_proj", "v_proj"}) linear_tensors(b, h, attn / p, s.hidden, s.hidden, false);
  b.parameter(h, attn("per_dim_scale"), {head_dim}, graph::TensorRole::Other);
  linear_tensors(b, h, attn / "relative_position_embedding" / "pos_proj", s.hidden, s.hidden, false,
                 graph::Operand::Positions);
  if (s.hidden % s.heads != 0)
    b.fail(h, fmt::format("hidden size {} not divisible by {} heads", s.hidden, s.heads));
  auto out = dense(b, h, fmt::format("Attention_{}_Post", i), m / "post", s.hidden, s.hidden, false);
  out = rms_norm(b, out, fmt::format("Attention_{}_Post_RMSNorm", i), m / "post_norm");
  return add(b, out, x, fmt::format("Attention_{}_Add", i));
}

Value light_conv(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const AudioSpec& s) {
  const Scope m = l / "lconv1d";
  const std::int64_t frames = x.shape.front();
  auto h = rms_norm(b, x, fmt::format("LConv_{}_Pre_RMSNorm", i), m / "pre_layer_norm");
  h = dense(b, h, fmt::format("LConv_{}_Start", i), m / "linear_start", s.hidden, 2 * s.hidden, false);
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
  // A parameter-free Linear node that only applies SiLU, like the GLU's.
  h = b.node(NodeType::Linear, fmt::format("LConv_{}_SiLU", i), {frames, s.hidden}, {h});
  b.at(h).activation = "silu";
  h = dense(b, h, fmt::format("LConv_{}_End", i), m / "linear_end", s.hidden, s.hidden, false);
  return add(b, h, x, fmt::format("LConv_{}_Add", i));
}

graph::Value build(const BuildInput& in, GraphBuilder& b) {
  const AudioSpec s = read_spec(in.config);
  const std::int64_t frames = in.requested_seq ? *in.requested_seq : kDefaultFrames;
  auto x = b.input({frames, s.features}, "audio_features", "audio_mel");

  const Scope sscp("subsample_conv_projection");
  Value map{x.node, {1, frames, s.features}};  // one input channel
  map = subsample(b, map, 0, s, sscp / "conv_0");
  map = subsample(b, map, 1, s, sscp / "conv_1");
  const std::int64_t sub_frames = map.shape[1], flattened = map.shape[0] * map.shape[2];
  x = dense(b, Value{map.node, {sub_frames, flattened}}, "Subsample_Projection", sscp / "input_proj_linear",
            flattened, s.hidden, false);

  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = Scope("conformer") / i;
    x = feed_forward_half(b, x, i, "ffw_layer_start", l, s);
    x = attention_block(b, x, i, l, s);
    x = light_conv(b, x, i, l, s);
    x = feed_forward_half(b, x, i, "ffw_layer_end", l, s);
    x = rms_norm(b, x, BlockNames{i}.norm(1, NormKind::RMSNorm), l / "norm");
  }
  b.set_block(-1);
  if (s.reduction > 1) {
    // Every reduction-th frame ([:: reduction]): a view.
    const std::int64_t kept = (sub_frames + s.reduction - 1) / s.reduction;
    x = b.node(NodeType::Add, "Frame_Reduction", {kept, s.hidden}, {x});
  }
  return x;
}

}  // namespace
}  // namespace gemma3n_audio_impl

const Family& gemma3n_audio_family() {
  static const Family family{"gemma3n_audio", "models/gemma3n/modeling_gemma3n.py",
                             {{"Gemma3nAudioEncoder", Head::Base}}, gemma3n_audio_impl::build};
  return family;
}

}  // namespace neurarch::families
