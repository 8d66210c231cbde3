// wav2vec2-bert (models/wav2vec2_bert/modeling_wav2vec2_bert.py + configuration_wav2vec2_bert.py,
// transformers 4.47.1): no convolutional feature encoder. input_features are 80-bin log-mel fbank
// frames (SeamlessM4TFeatureExtractor: 25 ms windows every 10 ms at 16 kHz) stacked by two into
// feature_projection_input_dim = 160 columns; a LayerNorm and a projection to hidden_size, then
// conformer layers (conformer_common) whose depthwise conv is causal and followed by a LayerNorm,
// with "relative_key" attention by default (a clamped-distance table per layer); "rotary" keeps its
// inv_freq unsaved (persistent=False). No encoder LayerNorm. use_intermediate_ffn_before_adapter adds 0.5 * a ReLU feed-forward; add_adapter adds
// strided GLU-conv layers with their own attention. --seq sets the audio samples (default 1 s).
#include <fmt/format.h>

#include "blocks/conv.hpp"
#include "core/error.hpp"
#include "families/conformer_common.hpp"
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace wav2vec2_bert_impl {
namespace {

using namespace blocks;

// SeamlessM4TFeatureExtractor's defaults: 400-sample windows, a 160-sample hop, no centring, and the
// frames stacked in pairs (an odd last frame is dropped).
constexpr std::int64_t kFbankWindow = 400;
constexpr std::int64_t kFbankHop = 160;
constexpr std::int64_t kFrameStack = 2;

std::int64_t stacked_frames(std::int64_t samples) {
  if (samples < kFbankWindow) return 0;
  return (1 + (samples - kFbankWindow) / kFbankHop) / kFrameStack;
}

struct Dims {
  std::int64_t hidden, heads, intermediate, output_hidden;
  double hidden_dropout, attention_dropout, activation_dropout, conv_dropout;
};

// Wav2Vec2BertAdapterLayer: a residual branch and an attention branch, each LayerNorm -> strided
// conv (C -> 2C, padding stride / 2) -> GLU, summed after the attention; then a pre-norm feed-forward.
Value adapter_layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const Dims& d,
                    std::int64_t kernel, std::int64_t stride, const std::string& act) {
  const std::int64_t c = d.output_hidden;
  auto strided = [&](const Value& in, const std::string& which, const std::string& norm_module,
                     const std::string& conv_module) {
    auto h = norm(b, in, fmt::format("Adapter_LayerNorm_{}_{}", i, which), {l / norm_module});
    h = conv1d(b, h, fmt::format("Adapter_Conv_{}_{}", i, which),
               {.module = l / conv_module, .in_channels = c, .out_channels = 2 * c, .kernel = kernel,
                .stride = stride, .padding = stride / 2});
    return glu(b, h, fmt::format("Adapter_GLU_{}_{}", i, which));
  };
  auto residual = strided(x, "Residual", "residual_layer_norm", "residual_conv");
  auto h = strided(x, "Attention", "self_attn_layer_norm", "self_attn_conv");
  const Scope attn = l / "self_attn";
  h = attention(b, h, fmt::format("Adapter_Attention_{}", i),
                {.hidden = c, .heads = d.heads, .module = attn, .q = attn / "linear_q", .k = attn / "linear_k",
                 .v = attn / "linear_v", .o = attn / "linear_out", .dropout = d.attention_dropout,
                 .output_dropout = d.conv_dropout});
  b.at(h).attention->sdpa = false;
  h = add(b, h, residual, fmt::format("Adapter_Add_{}_1", i));
  auto f = norm(b, h, fmt::format("Adapter_LayerNorm_{}_FFN", i), {l / "ffn_layer_norm"});
  const Scope ffn = l / "ffn";
  f = feed_forward(b, f, fmt::format("Adapter_FFN_{}", i),
                   {.hidden = c, .intermediate = d.intermediate, .activation = act, .module = ffn,
                    .up = ffn / "intermediate_dense", .down = ffn / "output_dense",
                    .output_dropout = d.hidden_dropout, .inner_dropout = d.activation_dropout});
  return add(b, f, h, fmt::format("Adapter_Add_{}_2", i));
}

graph::Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  Dims d{};
  d.hidden = c.dim({"hidden_size"}, 1024);
  const std::int64_t layers = c.dim({"num_hidden_layers"}, 24);
  d.heads = c.dim({"num_attention_heads"}, 16);
  d.intermediate = c.dim({"intermediate_size"}, 4096);
  d.hidden_dropout = c.number({"hidden_dropout"}, 0.0);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  d.activation_dropout = c.number({"activation_dropout"}, 0.0);
  d.conv_dropout = c.number({"conformer_conv_dropout"}, 0.1);
  const std::string act = c.text({"hidden_act"}, "swish");
  const std::int64_t input_dim = c.dim({"feature_projection_input_dim"}, 160);
  const bool adapter = c.flag({"add_adapter"}, false);
  d.output_hidden = c.dim({"output_hidden_size"}, d.hidden);
  const bool masked_spec = c.number({"mask_time_prob"}, 0.05) > 0.0 || c.number({"mask_feature_prob"}, 0.0) > 0.0;

  conformer::LayerSpec spec{.hidden = d.hidden, .heads = d.heads, .intermediate = d.intermediate,
                            .depthwise_kernel = c.dim({"conv_depthwise_kernel_size"}, 31), .activation = act,
                            .hidden_dropout = d.hidden_dropout, .attention_dropout = d.attention_dropout,
                            .activation_dropout = d.activation_dropout, .conv_dropout = d.conv_dropout,
                            .positions = conformer::positions_from(c, "relative_key"),
                            .left_positions = c.dim({"left_max_position_embeddings"}, 64),
                            .right_positions = c.dim({"right_max_position_embeddings"}, 8),
                            .causal_depthwise = true};
  if (spec.depthwise_kernel % 2 == 0)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'conv_depthwise_kernel_size'",
                fmt::format("{} is even; the reference needs an odd kernel", spec.depthwise_kernel));
  if (in.head == Head::SequenceClassification && adapter)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'add_adapter'",
                "Wav2Vec2BertForSequenceClassification does not support the adapter");

  const Scope root = in.head == Head::Base ? Scope() : Scope("wav2vec2_bert");
  const std::int64_t samples = in.requested_seq ? *in.requested_seq : wav2vec2::kDefaultSamples;
  auto x = b.input({stacked_frames(samples), input_dim}, "audio_features");
  if (x.shape.front() < 1)
    b.fail(x, fmt::format("{} samples give no fbank frame pair (a window is {} samples)", samples, kFbankWindow));

  const Scope projection = root / "feature_projection";
  x = norm(b, x, "Feature_Projection_LayerNorm", {projection / "layer_norm"});
  x = dense(b, x, "Feature_Projection", projection / "projection", input_dim, d.hidden, true);
  b.at(x).dropout = c.number({"feat_proj_dropout"}, 0.0);
  if (masked_spec) b.parameter(x, root("masked_spec_embed"), {d.hidden}, graph::TensorRole::Embedding);

  const Scope encoder = root / "encoder";
  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    x = conformer::layer(b, x, i, encoder / "layers" / i, spec);
  }
  b.set_block(-1);

  if (c.flag({"use_intermediate_ffn_before_adapter"}, false)) {
    const Scope ffn = root / "intermediate_ffn";
    auto f = feed_forward(b, x, "Intermediate_FFN",
                          {.hidden = d.hidden, .intermediate = d.intermediate, .activation = "relu", .module = ffn,
                           .up = ffn / "intermediate_dense", .down = ffn / "output_dense",
                           .output_dropout = d.hidden_dropout, .inner_dropout = d.activation_dropout});
    x = add(b, f, x, "Intermediate_FFN_Add");  // hidden + 0.5 * ffn(hidden)
  }
  std::int64_t width = d.hidden;
  if (adapter) {
    const Scope a = root / "adapter";
    if (d.output_hidden != d.hidden) {
      x = dense(b, x, "Adapter_Projection", a / "proj", d.hidden, d.output_hidden, true);
      x = norm(b, x, "Adapter_Projection_LayerNorm", {a / "proj_layer_norm"});
    }
    const std::int64_t kernel = c.dim({"adapter_kernel_size"}, 3);
    const std::int64_t stride = c.dim({"adapter_stride"}, 2);
    const std::string adapter_act = c.text({"adapter_act"}, "relu");
    const std::int64_t adapter_layers = c.integer({"num_adapter_layers"}, 1);
    for (std::int64_t i = 0; i < adapter_layers; ++i)
      x = adapter_layer(b, x, i, a / "layers" / i, d, kernel, stride, adapter_act);
    width = d.output_hidden;
  }
  // vocab_size defaults to None: ForCTC needs one.
  return wav2vec2::heads(in, b, x, width, layers, 768, std::nullopt);
}

}  // namespace
}  // namespace wav2vec2_bert_impl

const Family& wav2vec2_bert_family() {
  static const Family family{"wav2vec2-bert", "models/wav2vec2_bert/modeling_wav2vec2_bert.py",
                             classes("Wav2Vec2Bert", heads::kSpeech), wav2vec2_bert_impl::build};
  return family;
}

}  // namespace neurarch::families
