// Granite Speech (GraniteSpeechForConditionalGeneration in models/granite_speech/modeling_granite_speech.py,
// transformers 4.57.6): a conformer CTC encoder, a windowed Q-Former projector and a Granite causal LM.
// - encoder (GraniteSpeechCTCEncoder): input_linear (input_dim stacked mel features -> hidden_dim), num_layers
//   conformer blocks — half-step feed-forwards ff1 / ff2 (pre_norm, up_proj x feedforward_mult, SiLU,
//   down_proj), attention in blocks of context_size frames (pre_norm, bias-free to_q and fused to_kv, to_out,
//   Shaw's relative positions: q against rel_pos_emb [2 max_pos_emb + 1, dim_head] looked up per distance, added
//   to the scores of SDPA's math path), a convolution module (norm, up_conv to 2 x inner, GLU, bias-free
//   depthwise conv_kernel_size conv, BatchNorm1d, SiLU, down_conv) and post_norm. After layer num_layers / 2 the
//   mid-layer CTC head `out` (to output_dim) is softmaxed and fed back through `out_mid`.
// - projector: the frames, padded to whole windows of window_size, each read by window_size / downsample_rate
//   learned queries (`projector.query`) through a Blip2QFormerModel of projector_config (blip::qformer, the
//   windows as a batch), then `linear` to the LM's width.
// - language_model: text_config's causal LM (Granite by default), the projected audio tokens scattered into the
//   prompt's audio-token positions. 4.57.6 nests it as language_model.model.* / language_model.lm_head.
// The audio is 30 s: 3,000 10 ms mel frames stacked by two (input_dim = 2 x 80) into 1,500 encoder frames.
#include <fmt/format.h>

#include "blocks/conv.hpp"
#include "core/error.hpp"
#include "families/blip_common.hpp"
#include "families/granite_speech.hpp"
#include "families/multimodal_common.hpp"

namespace neurarch::families {
namespace granite_speech_impl {
namespace {

using namespace blocks;
using graph::NodeType;

constexpr std::int64_t kDefaultFrames = 1500;

struct EncoderSpec {
  std::int64_t input = 160, layers = 10, hidden = 1024, ff_mult = 4, heads = 8, head_dim = 128, output = 42;
  std::int64_t context = 200, max_pos = 512, kernel = 15, expansion = 2;
  double dropout = 0.1;
};

EncoderSpec read_encoder(const Config& c) {
  EncoderSpec s;
  s.input = c.dim({"input_dim"}, s.input);
  s.layers = c.dim({"num_layers"}, s.layers);
  s.hidden = c.dim({"hidden_dim"}, s.hidden);
  s.ff_mult = c.dim({"feedforward_mult"}, s.ff_mult);
  s.heads = c.dim({"num_heads"}, s.heads);
  s.head_dim = c.dim({"dim_head"}, s.head_dim);
  s.output = c.dim({"output_dim"}, s.output);
  s.context = c.dim({"context_size"}, s.context);
  s.max_pos = c.dim({"max_pos_emb"}, s.max_pos);
  s.kernel = c.dim({"conv_kernel_size"}, s.kernel);
  s.expansion = c.dim({"conv_expansion_factor"}, s.expansion);
  s.dropout = c.number({"dropout"}, s.dropout);
  if (s.context > s.max_pos)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'context_size'",
                fmt::format("{} exceeds max_pos_emb {} (the reference refuses it)", s.context, s.max_pos));
  return s;
}

Value half_ffn(GraphBuilder& b, const Value& x, const std::string& label, const Scope& m, const EncoderSpec& s) {
  auto h = norm(b, x, label + "_LayerNorm", {m / "pre_norm"});
  h = feed_forward(b, h, label,
                   {.hidden = s.hidden, .intermediate = s.hidden * s.ff_mult, .activation = "silu", .module = m,
                    .up = m / "up_proj", .down = m / "down_proj", .output_dropout = s.dropout,
                    .inner_dropout = s.dropout});
  return add(b, h, x, label + "_Add");
}

Value block_attention(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& m, const EncoderSpec& s) {
  auto h = norm(b, x, fmt::format("LayerNorm_{}_Attention", i), {m / "pre_norm"});
  const std::int64_t inner = s.heads * s.head_dim, frames = h.shape.front();
  auto a = b.node(NodeType::MultiHeadAttention, fmt::format("Attention_{}", i), {frames, s.hidden}, {h}, m);
  // Each query attends within its block of context_size frames (the last block padded).
  graph::AttentionAttrs attrs{s.heads, s.heads, s.head_dim, frames, std::min(frames, s.context), false, 0, 0.0,
                              false, false};
  attrs.sdpa = false;  // SDPBackend.MATH: the scores and probabilities are materialised
  attrs.relative_span = std::min(frames, s.context);
  attrs.c2p = true;
  b.at(a).attention = attrs;
  b.at(a).dropout = s.dropout;
  b.parameter(a, (m / "to_q")("weight"), {inner, s.hidden}, graph::TensorRole::Linear);
  b.parameter(a, (m / "to_kv")("weight"), {2 * inner, s.hidden}, graph::TensorRole::Linear);
  linear_tensors(b, a, m / "to_out", inner, s.hidden, true, graph::Operand::Inner);
  b.parameter(a, (m / "rel_pos_emb")("weight"), {2 * s.max_pos + 1, s.head_dim}, graph::TensorRole::Linear,
              graph::Operand::Positions);
  return add(b, a, x, fmt::format("Add_{}_Attention", i));
}

Value conv_module(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& m, const EncoderSpec& s) {
  const std::int64_t inner = s.hidden * s.expansion;
  auto h = norm(b, x, fmt::format("LayerNorm_{}_Conv", i), {m / "norm"});
  h = conv1d(b, h, fmt::format("Up_Conv_{}", i),
             {.module = m / "up_conv", .in_channels = s.hidden, .out_channels = 2 * inner});
  h = glu(b, h, fmt::format("GLU_{}", i));
  // Padded (k / 2, k / 2 - (k + 1) % 2): the length is kept.
  const std::int64_t frames = h.shape.front();
  auto d = conv1d(b, h, fmt::format("Depthwise_Conv_{}", i),
                  {.module = m / "depth_conv" / "conv", .in_channels = inner, .out_channels = inner,
                   .kernel = s.kernel, .padding = s.kernel / 2, .groups = inner, .bias = false});
  b.at(d).conv->out_len = frames;
  b.at(d).out.front() = frames;
  d.shape.front() = frames;
  h = batch_norm1d(b, d, fmt::format("BatchNorm_{}", i), m / "batch_norm", "silu");
  h = conv1d(b, h, fmt::format("Down_Conv_{}", i),
             {.module = m / "down_conv", .in_channels = inner, .out_channels = s.hidden});
  b.at(h).dropout = s.dropout;
  return add(b, h, x, fmt::format("Add_{}_Conv", i));
}

Value encoder(GraphBuilder& b, const EncoderSpec& s, const Scope& enc) {
  auto x = b.input({kDefaultFrames, s.input}, "audio_features", "input_features");
  x = dense(b, x, "Input_Linear", enc / "input_linear", s.input, s.hidden, true);
  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = enc / "layers" / i;
    x = half_ffn(b, x, fmt::format("FFN_{}_1", i), l / "ff1", s);
    x = block_attention(b, x, i, l / "attn", s);
    x = conv_module(b, x, i, l / "conv", s);
    x = half_ffn(b, x, fmt::format("FFN_{}_2", i), l / "ff2", s);
    x = norm(b, x, fmt::format("LayerNorm_{}_Post", i), {l / "post_norm"});
    if (i + 1 == s.layers / 2) {
      auto mid = dense(b, x, "CTC_Mid_Out", enc / "out", s.hidden, s.output, true, "softmax");
      mid = dense(b, mid, "CTC_Mid_Feedback", enc / "out_mid", s.output, s.hidden, true);
      x = add(b, mid, x, "Add_CTC_Mid");
    }
  }
  b.set_block(-1);
  return x;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Config encoder_config = c.child("encoder_config");
  const Config projector_config = c.child("projector_config");
  const Config text = c.child("text_config");
  const auto lm = multimodal::find_language_model(c, text.text({"model_type"}, "granite"), Head::CausalLM,
                                                  "Granite Speech");
  const std::int64_t text_hidden = multimodal::token_width(in, text, lm);
  const EncoderSpec s = read_encoder(encoder_config);
  auto x = encoder(b, s, Scope("encoder"));

  const std::int64_t window = c.dim({"window_size"}, 15);
  const std::int64_t rate = c.dim({"downsample_rate"}, 5);
  const std::int64_t queries = window / rate;
  const std::int64_t qformer_hidden = projector_config.dim({"hidden_size"}, 768);
  const std::int64_t width = projector_config.dim({"encoder_hidden_size"}, 1408);
  const std::int64_t blocks = (x.shape.front() + window - 1) / window;
  auto query = b.node(NodeType::Embedding, "Projector_Query", {queries, qformer_hidden}, {});
  b.parameter(query, "projector.query", {1, queries, qformer_hidden}, graph::TensorRole::Other);
  Value features;
  {
    graph::Nested nest(b, {.module = "", .label = "QFormer_", .first_block = b.next_block()});
    features = blip::qformer(b, projector_config,
                             {.root = Scope("projector") / "qformer", .queries = query,
                              .image = Value{x.node, {blocks, window, s.hidden}}, .encoder_width = width,
                              .frames = blocks});
  }
  features = dense(b, Value{features.node, {blocks * queries, qformer_hidden}}, "Projector_Linear",
                   Scope("projector") / "linear", qformer_hidden, text_hidden, true);
  const Value logits = multimodal::build_language_model(
      in, b, text, lm, {.module = "language_model", .label = "LM_", .first_block = b.next_block()});
  multimodal::scatter_image_features(b, features);
  return logits;
}

}  // namespace
}  // namespace granite_speech_impl
using namespace granite_speech_impl;

namespace granite_speech {

Value ctc_encoder(GraphBuilder& b, const Config& encoder_config) {
  return granite_speech_impl::encoder(b, granite_speech_impl::read_encoder(encoder_config), Scope());
}

}  // namespace granite_speech

const Family& granite_speech_family() {
  static const Family family{"granite_speech", "models/granite_speech/modeling_granite_speech.py",
                             {{"GraniteSpeechForConditionalGeneration", Head::CausalLM}}, granite_speech_impl::build};
  return family;
}

}  // namespace neurarch::families
