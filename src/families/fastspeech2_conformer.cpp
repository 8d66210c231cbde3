// FastSpeech2-Conformer (FastSpeech2ConformerModel in models/fastspeech2_conformer/modeling_fastspeech2_conformer.py,
// transformers 4.47.1): ESPnet's non-autoregressive text-to-speech model.
// - Encoder: phoneme embeddings (`encoder.embed`), then conformer layers (`conformer_layers`): a macaron
//   feed-forward (two Conv1d of positionwise_conv_kernel_size with a ReLU, half-step), self-attention with
//   Transformer-XL relative positions (linear_pos over a [2T - 1, hidden] sinusoid, pos_bias_u / pos_bias_v), the
//   convolution module (pointwise conv to 2C, GLU, depthwise conv, BatchNorm1d `norm`, SiLU, pointwise conv), a
//   second half-step feed-forward and, with the convolution module, final_layer_norm. Norms follow each part
//   (normalize_before false, the default) or precede it; concat_after adds concat_linear over [input, attention].
// - Variance adaptor: duration, pitch and energy predictors (Conv1d + ReLU + LayerNorm layers, then a Linear to one
//   value per token); pitch and energy go back in through kernel-1 Conv1d embeddings added to the encoder output.
//   Optional speaker / language id tables and a speaker-embedding projection.
// - The length regulator repeats each token by its duration: the decoder's frame count is data-dependent, so it
//   is --target-seq (default: one frame per token). Decoder: the same conformer layers (no embedding), then the
//   postnet (feat_out to num_mel_bins * reduction_factor and a residual stack of bias-free Conv1d + BatchNorm1d,
//   Tanh on all but the last).
#include "families/fastspeech2_conformer.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "core/error.hpp"

namespace neurarch::families {

namespace fastspeech2 {

using namespace blocks;

Value convolution_module(GraphBuilder& b, const Value& x, std::int64_t i, const ConvModuleSpec& s) {
  const Scope& m = s.module;
  auto h = conv1d(b, x, fmt::format("Pointwise_Conv_{}_1", i),
                  {.module = m / "pointwise_conv1", .in_channels = s.channels, .out_channels = 2 * s.channels,
                   .bias = s.bias});
  h = glu(b, h, fmt::format("GLU_{}", i));
  h = conv1d(b, h, fmt::format("Depthwise_Conv_{}", i),
             {.module = m / "depthwise_conv", .in_channels = s.channels, .out_channels = s.channels,
              .kernel = s.kernel, .padding = (s.kernel - 1) / 2, .groups = s.channels, .bias = s.bias});
  h = batch_norm1d(b, h, fmt::format("BatchNorm_{}", i), m / "norm", s.activation);
  return conv1d(b, h, fmt::format("Pointwise_Conv_{}_2", i),
                {.module = m / "pointwise_conv2", .in_channels = s.channels, .out_channels = s.channels,
                 .bias = s.bias});
}

}  // namespace fastspeech2

namespace fastspeech2_conformer_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct StackSpec {
  std::string label;  ///< node-name prefix: "Encoder" / "Decoder"
  std::int64_t layers = 4, heads = 2, linear_units = 1536, kernel = 7;
  bool normalize_before = false, concat_after = false;
  double dropout = 0.2, attention_dropout = 0.2;
};

struct Dims {
  std::int64_t hidden = 384, vocab = 78, mel = 80, reduction = 1, ffn_kernel = 3, max_positions = 5000;
  bool macaron = true, cnn = true;
  StackSpec encoder, decoder;
  std::int64_t postnet_layers = 5, postnet_units = 256, postnet_kernel = 5;
  double postnet_dropout = 0.5;
};

StackSpec read_stack(const Config& c, const std::string& side, std::int64_t kernel) {
  StackSpec s;
  s.label = side == "encoder" ? "Encoder" : "Decoder";
  s.layers = c.integer({side + "_layers"}, s.layers);
  s.heads = c.dim({side + "_num_attention_heads"}, s.heads);
  s.linear_units = c.dim({side + "_linear_units"}, s.linear_units);
  s.kernel = c.dim({side + "_kernel_size"}, kernel);
  s.normalize_before = c.flag({side + "_normalize_before"}, false);
  s.concat_after = c.flag({side + "_concat_after"}, false);
  s.dropout = c.number({side + "_dropout_rate"}, 0.2);
  s.attention_dropout = c.number({side + "_attention_dropout_rate"}, 0.2);
  return s;
}

Dims read_dims(const Config& c) {
  Dims d;
  d.hidden = c.dim({"hidden_size"}, d.hidden);
  d.vocab = c.dim({"vocab_size"}, d.vocab);
  d.mel = c.dim({"num_mel_bins"}, d.mel);
  d.reduction = c.dim({"reduction_factor"}, d.reduction);
  d.ffn_kernel = c.dim({"positionwise_conv_kernel_size"}, d.ffn_kernel);
  d.max_positions = c.dim({"max_source_positions"}, d.max_positions);
  d.macaron = c.flag({"use_macaron_style_in_conformer"}, d.macaron);
  d.cnn = c.flag({"use_cnn_in_conformer"}, d.cnn);
  d.encoder = read_stack(c, "encoder", 7);
  d.decoder = read_stack(c, "decoder", 31);
  d.postnet_layers = c.integer({"speech_decoder_postnet_layers"}, d.postnet_layers);
  d.postnet_units = c.dim({"speech_decoder_postnet_units"}, d.postnet_units);
  d.postnet_kernel = c.dim({"speech_decoder_postnet_kernel"}, d.postnet_kernel);
  d.postnet_dropout = c.number({"speech_decoder_postnet_dropout"}, d.postnet_dropout);
  return d;
}

// FastSpeech2ConformerMultiLayeredConv1d: conv1 (hidden -> linear_units) + ReLU, conv2 back.
Value conv_feed_forward(GraphBuilder& b, const Value& x, const std::string& label, const Scope& m, const Dims& d,
                        const StackSpec& s) {
  const std::int64_t pad = (d.ffn_kernel - 1) / 2;
  auto h = conv1d(b, x, label + "_Conv_1",
                  {.module = m / "conv1", .in_channels = d.hidden, .out_channels = s.linear_units,
                   .kernel = d.ffn_kernel, .padding = pad, .activation = "relu"});
  b.at(h).dropout = s.dropout;
  h = conv1d(b, h, label + "_Conv_2",
             {.module = m / "conv2", .in_channels = s.linear_units, .out_channels = d.hidden, .kernel = d.ffn_kernel,
              .padding = pad});
  b.at(h).dropout = s.dropout;
  return h;
}

// One residual part: norm before (normalize_before) or after the sum.
template <typename Body>
Value residual_part(GraphBuilder& b, const Value& x, const std::string& name, const Scope& ln, const StackSpec& s,
                    Body body) {
  Value h = s.normalize_before ? norm(b, x, "LayerNorm_" + name, {ln}) : x;
  auto out = add(b, body(h), x, "Add_" + name);
  return s.normalize_before ? out : norm(b, out, "LayerNorm_" + name, {ln});
}

Value conformer_layer(GraphBuilder& b, const Value& x, std::int64_t i, const Scope& l, const Dims& d,
                      const StackSpec& s) {
  const std::string n = fmt::format("{}_{}", s.label, i);
  Value h = x;
  if (d.macaron)
    h = residual_part(b, h, n + "_FFN_Macaron", l / "ff_macaron_layer_norm", s, [&](const Value& in) {
      return conv_feed_forward(b, in, n + "_FFN_Macaron", l / "feed_forward_macaron", d, s);
    });
  h = residual_part(b, h, n + "_Attention", l / "self_attn_layer_norm", s, [&](const Value& in) {
    const Scope attn = l / "self_attn";
    auto a = attention(b, in, "Attention_" + n,
                       {.hidden = d.hidden, .heads = s.heads, .module = attn, .q = attn / "linear_q",
                        .k = attn / "linear_k", .v = attn / "linear_v", .o = attn / "linear_out",
                        .dropout = s.attention_dropout, .output_dropout = s.dropout});
    const std::int64_t head_dim = d.hidden / s.heads, frames = in.shape.front();
    linear_tensors(b, a, attn / "linear_pos", d.hidden, d.hidden, false, graph::Operand::Positions);
    b.parameter(a, attn("pos_bias_u"), {s.heads, head_dim}, graph::TensorRole::Other);
    b.parameter(a, attn("pos_bias_v"), {s.heads, head_dim}, graph::TensorRole::Other);
    auto& attrs = *b.at(a).attention;
    attrs.sdpa = false;  // the scores are computed by hand (matrix_ac + shifted matrix_bd)
    attrs.relative_span = 2 * frames - 1;
    attrs.c2p = true;
    if (!s.concat_after) return a;
    return dense(b, Value{a.node, {frames, 2 * d.hidden}}, "Concat_Linear_" + n, l / "concat_linear", 2 * d.hidden,
                 d.hidden, true);
  });
  if (d.cnn)
    h = residual_part(b, h, n + "_Conv", l / "conv_layer_norm", s, [&](const Value& in) {
      auto c = fastspeech2::convolution_module(
          b, in, i, {.module = l / "conv_module", .channels = d.hidden, .kernel = s.kernel});
      b.at(c).dropout = s.dropout;
      return c;
    });
  h = residual_part(b, h, n + "_FFN", l / "ff_layer_norm", s, [&](const Value& in) {
    return conv_feed_forward(b, in, n + "_FFN", l / "feed_forward", d, s);
  });
  if (d.cnn) h = norm(b, h, "LayerNorm_" + n + "_Final", {l / "final_layer_norm"});
  return h;
}

Value conformer_stack(GraphBuilder& b, Value x, const Scope& stack, const Dims& d, const StackSpec& s,
                      int first_block) {
  if (x.shape.front() > d.max_positions)
    b.fail(x, fmt::format("{} positions exceed max_source_positions {}", x.shape.front(), d.max_positions));
  for (std::int64_t i = 0; i < s.layers; ++i) {
    b.set_block(first_block + static_cast<int>(i));
    x = conformer_layer(b, x, i, stack / "conformer_layers" / i, d, s);
  }
  b.set_block(-1);
  return x;
}

// Predictor layers (Conv1d + ReLU, LayerNorm over the channels, dropout) and a Linear to one value a token.
Value variance_predictor(GraphBuilder& b, const Value& x, const std::string& label, const Scope& m,
                         std::int64_t hidden, std::int64_t layers, std::int64_t channels, std::int64_t kernel,
                         double dropout) {
  Value h = x;
  for (std::int64_t i = 0; i < layers; ++i) {
    const Scope l = m / "conv_layers" / i;
    h = conv1d(b, h, fmt::format("{}_Conv_{}", label, i),
               {.module = l / "conv", .in_channels = i == 0 ? hidden : channels, .out_channels = channels,
                .kernel = kernel, .padding = (kernel - 1) / 2, .activation = "relu"});
    h = norm(b, h, fmt::format("{}_LayerNorm_{}", label, i), {l / "layer_norm"});
    b.at(h).dropout = dropout;
  }
  return dense(b, h, label + "_Linear", m / "linear", channels, 1, true);
}

Value variance_embedding(GraphBuilder& b, const Value& values, const std::string& label, const Scope& m,
                         std::int64_t hidden, std::int64_t kernel) {
  return conv1d(b, values, label,
                {.module = m / "conv", .in_channels = 1, .out_channels = hidden, .kernel = kernel,
                 .padding = (kernel - 1) / 2});
}

Value postnet(GraphBuilder& b, const Value& x, const Dims& d, const Scope& m) {
  auto feats = dense(b, x, "Feat_Out", m / "feat_out", d.hidden, d.mel * d.reduction, true);
  const Value before{feats.node, {x.shape.front() * d.reduction, d.mel}};
  Value h = before;
  for (std::int64_t i = 0; i < d.postnet_layers; ++i) {
    const Scope l = m / "layers" / i;
    const bool last = i + 1 == d.postnet_layers;
    h = conv1d(b, h, fmt::format("Postnet_Conv_{}", i),
               {.module = l / "conv", .in_channels = i == 0 ? d.mel : d.postnet_units,
                .out_channels = last ? d.mel : d.postnet_units, .kernel = d.postnet_kernel,
                .padding = (d.postnet_kernel - 1) / 2, .bias = false});
    h = batch_norm1d(b, h, fmt::format("Postnet_BatchNorm_{}", i), l / "batch_norm", last ? "" : "tanh");
    b.at(h).dropout = d.postnet_dropout;
  }
  return add(b, h, before, "Postnet_Residual");
}

}  // namespace
}  // namespace fastspeech2_conformer_impl
using namespace fastspeech2_conformer_impl;

namespace fastspeech2 {

Value model(const BuildInput& in, GraphBuilder& b, const Config& c) {
  const Dims d = read_dims(c);
  const std::int64_t tokens = in.sequence_length(d.max_positions);
  auto ids = b.input({tokens}, "tokens");
  auto x = token_embedding(b, ids, "Embedding", Scope("encoder") / "embed", d.vocab, d.hidden);
  b.at(x).dropout = c.number({"encoder_positional_dropout_rate"}, 0.2);
  x = conformer_stack(b, x, Scope("encoder"), d, d.encoder, 0);

  const auto* speakers = c.raw({"num_speakers"});
  if (speakers && speakers->is_number_integer() && speakers->get<std::int64_t>() > 1)
    x = added_embedding(b, x, "Speaker_Id_Embedding", Scope("speaker_id_embedding"), speakers->get<std::int64_t>(),
                        d.hidden);
  const auto* languages = c.raw({"num_languages"});
  if (languages && languages->is_number_integer() && languages->get<std::int64_t>() > 1)
    x = added_embedding(b, x, "Language_Id_Embedding", Scope("language_id_embedding"),
                        languages->get<std::int64_t>(), d.hidden);
  if (const auto* spk = c.raw({"speaker_embed_dim"}); spk && spk->is_number_integer()) {
    const std::int64_t width = spk->get<std::int64_t>();
    x = dense(b, Value{x.node, {tokens, d.hidden + width}}, "Speaker_Projection", Scope("projection"),
              d.hidden + width, d.hidden, true);
  }

  variance_predictor(b, x, "Duration_Predictor", Scope("duration_predictor"), d.hidden,
                     c.integer({"duration_predictor_layers"}, 2), c.dim({"duration_predictor_channels"}, 256),
                     c.dim({"duration_predictor_kernel_size"}, 3), c.number({"duration_predictor_dropout_rate"}, 0.2));
  auto pitch = variance_predictor(b, x, "Pitch_Predictor", Scope("pitch_predictor"), d.hidden,
                                  c.integer({"pitch_predictor_layers"}, 5), c.dim({"pitch_predictor_channels"}, 256),
                                  c.dim({"pitch_predictor_kernel_size"}, 5), c.number({"pitch_predictor_dropout"}, 0.5));
  auto energy = variance_predictor(b, x, "Energy_Predictor", Scope("energy_predictor"), d.hidden,
                                   c.integer({"energy_predictor_layers"}, 2), c.dim({"energy_predictor_channels"}, 256),
                                   c.dim({"energy_predictor_kernel_size"}, 3),
                                   c.number({"energy_predictor_dropout"}, 0.5));
  auto pitch_embed = variance_embedding(b, pitch, "Pitch_Embed", Scope("pitch_embed"), d.hidden,
                                        c.dim({"pitch_embed_kernel_size"}, 1));
  auto energy_embed = variance_embedding(b, energy, "Energy_Embed", Scope("energy_embed"), d.hidden,
                                         c.dim({"energy_embed_kernel_size"}, 1));
  x = add(b, add(b, x, energy_embed, "Add_Energy"), pitch_embed, "Add_Pitch");

  // The length regulator: each token repeated by its duration.
  const std::int64_t frames = in.target_length(tokens);
  x = b.node(NodeType::Add, "Length_Regulator", {frames, d.hidden}, {x});
  x = conformer_stack(b, x, Scope("decoder"), d, d.decoder, static_cast<int>(d.encoder.layers));
  return postnet(b, x, d, Scope("speech_decoder_postnet"));
}

}  // namespace fastspeech2

namespace fastspeech2_conformer_impl {
namespace {
Value build(const BuildInput& in, GraphBuilder& b) { return fastspeech2::model(in, b, in.config); }
}  // namespace
}  // namespace fastspeech2_conformer_impl

const Family& fastspeech2_conformer_family() {
  static const Family family{"fastspeech2_conformer", "models/fastspeech2_conformer/modeling_fastspeech2_conformer.py",
                             classes("FastSpeech2Conformer"), fastspeech2_conformer_impl::build};
  return family;
}

}  // namespace neurarch::families
