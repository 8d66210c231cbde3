// SpeechT5 (models/speecht5/modeling_speecht5.py, transformers 4.47.1): a post-norm encoder-decoder whose
// encoder and decoder sit behind modality prenets (`encoder.prenet` / `decoder.prenet`, the stacks at
// `encoder.wrapped_encoder` / `decoder.wrapped_decoder`).
// - The encoder normalises its input first (wrapped_encoder.layer_norm), then runs post-norm layers (attention,
//   layer_norm, feed_forward.intermediate_dense / output_dense, final_layer_norm) whose scores add q against a
//   [2 * encoder_max_relative_position, head_dim] table of clamped distances (embed_positions.pe_k), gathered
//   into [T, T, head_dim] once per forward.
// - Decoder layers: causal self_attn, encoder_attn, feed_forward, each followed by its LayerNorm; no final norm.
// - SpeechT5Model is built without prenets (it reads hidden-size vectors on both sides). SpeechT5ForTextToSpeech
//   adds the text encoder prenet (embed_tokens and a scaled sinusoid whose only parameter is alpha), the speech
//   decoder prenet (speech_decoder_prenet_layers ReLU Linears from num_mel_bins, final_layer, a scaled
//   sinusoid, speaker_embeds_layer over the speaker embedding concatenated to every frame) and the speech
//   decoder postnet (feat_out to num_mel_bins * reduction_factor, prob_out, and a residual stack of bias-free
//   Conv1d + BatchNorm1d layers, Tanh on all but the last). The attention class is eager only.
// The speech-input classes (ForSpeechToText, ForSpeechToSpeech: wav2vec2's feature encoder as prenet) are not
// built yet.
#include <algorithm>

#include <fmt/format.h>

#include "blocks/conv.hpp"
#include "blocks/seq2seq.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace speecht5_impl {
namespace {

using namespace blocks;
using graph::NodeType;

struct Dims {
  std::int64_t hidden = 768, vocab = 81;
  std::int64_t encoder_layers = 12, encoder_heads = 12, encoder_ffn = 3072;
  std::int64_t decoder_layers = 6, decoder_heads = 12, decoder_ffn = 3072;
  std::int64_t max_relative = 160, max_speech = 4000, max_text = 450;
  std::int64_t mel = 80, reduction = 2;
  std::int64_t prenet_layers = 2, prenet_units = 256, speaker_dim = 512;
  std::int64_t postnet_layers = 5, postnet_units = 256, postnet_kernel = 5;
  std::string activation = "gelu";
  double prenet_dropout = 0.5, postnet_dropout = 0.5;
  double hidden_dropout = 0.1, attention_dropout = 0.1, activation_dropout = 0.1, positional_dropout = 0.1;
};

Dims read_dims(const Config& c) {
  Dims d;
  d.hidden = c.dim({"hidden_size"}, d.hidden);
  d.vocab = c.dim({"vocab_size"}, d.vocab);
  d.encoder_layers = c.dim({"encoder_layers"}, d.encoder_layers);
  d.encoder_heads = c.dim({"encoder_attention_heads"}, d.encoder_heads);
  d.encoder_ffn = c.dim({"encoder_ffn_dim"}, d.encoder_ffn);
  d.decoder_layers = c.dim({"decoder_layers"}, d.decoder_layers);
  d.decoder_heads = c.dim({"decoder_attention_heads"}, d.decoder_heads);
  d.decoder_ffn = c.dim({"decoder_ffn_dim"}, d.decoder_ffn);
  d.max_relative = c.dim({"encoder_max_relative_position"}, d.max_relative);
  d.max_speech = c.dim({"max_speech_positions"}, d.max_speech);
  d.max_text = c.dim({"max_text_positions"}, d.max_text);
  d.mel = c.dim({"num_mel_bins"}, d.mel);
  d.reduction = c.dim({"reduction_factor"}, d.reduction);
  d.prenet_layers = c.integer({"speech_decoder_prenet_layers"}, d.prenet_layers);
  d.prenet_units = c.dim({"speech_decoder_prenet_units"}, d.prenet_units);
  d.speaker_dim = c.dim({"speaker_embedding_dim"}, d.speaker_dim);
  d.postnet_layers = c.integer({"speech_decoder_postnet_layers"}, d.postnet_layers);
  d.postnet_units = c.dim({"speech_decoder_postnet_units"}, d.postnet_units);
  d.postnet_kernel = c.dim({"speech_decoder_postnet_kernel"}, d.postnet_kernel);
  d.activation = c.text({"hidden_act"}, d.activation);
  d.hidden_dropout = c.number({"hidden_dropout"}, d.hidden_dropout);
  d.attention_dropout = c.number({"attention_dropout"}, d.attention_dropout);
  d.activation_dropout = c.number({"activation_dropout"}, d.activation_dropout);
  d.positional_dropout = c.number({"positional_dropout"}, d.positional_dropout);
  d.prenet_dropout = c.number({"speech_decoder_prenet_dropout"}, d.prenet_dropout);
  d.postnet_dropout = c.number({"speech_decoder_postnet_dropout"}, d.postnet_dropout);
  return d;
}

FeedForwardSpec ffn_spec(const Dims& d, const Scope& l, std::int64_t width) {
  const Scope m = l / "feed_forward";
  return {.hidden = d.hidden, .intermediate = width, .activation = d.activation, .module = m,
          .up = m / "intermediate_dense", .down = m / "output_dense", .output_dropout = d.hidden_dropout,
          .inner_dropout = d.activation_dropout};
}

AttentionSpec attention_spec(const Dims& d, const Scope& m, std::int64_t heads, bool causal) {
  return {.hidden = d.hidden, .heads = heads, .causal = causal, .module = m, .q = m / "q_proj", .k = m / "k_proj",
          .v = m / "v_proj", .o = m / "out_proj", .dropout = d.attention_dropout, .output_dropout = d.hidden_dropout};
}

// SpeechT5ScaledPositionalEncoding: x + alpha * pe[:T] (pe a non-persistent sinusoid of max_len rows).
Value scaled_positions(GraphBuilder& b, const Value& x, const std::string& name, const Scope& module,
                       std::int64_t rows, double dropout) {
  auto out = b.node(NodeType::Add, name, x.shape, {x}, module);
  b.parameter(out, module("alpha"), {}, graph::TensorRole::Other);
  b.at(out).dropout = dropout;
  if (x.shape.front() > rows)
    b.fail(out, fmt::format("{} positions exceed the {} rows of the scaled sinusoid", x.shape.front(), rows));
  return out;
}

Value encoder(GraphBuilder& b, Value x, const Dims& d, const Scope& stack) {
  x = norm(b, x, "Encoder_LayerNorm", {stack / "layer_norm"});
  b.at(x).dropout = d.hidden_dropout;
  const std::int64_t frames = x.shape.front(), head_dim = d.hidden / d.encoder_heads;
  // pe_k looked up at every clamped (query, key) distance: [T, T, head_dim], shared by the layers.
  auto table = b.node(NodeType::Embedding, "Relative_Position_Table", {frames, frames, head_dim}, {x},
                      stack / "embed_positions" / "pe_k");
  b.parameter(table, (stack / "embed_positions" / "pe_k")("weight"), {2 * d.max_relative, head_dim}, graph::TensorRole::Embedding);
  for (std::int64_t i = 0; i < d.encoder_layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = stack / "layers" / i;
    PostNormLayer layer;
    layer.attention = attention_spec(d, l / "attention", d.encoder_heads, false);
    layer.norm1.module = l / "layer_norm";
    layer.ffn = ffn_spec(d, l, d.encoder_ffn);
    layer.norm2.module = l / "final_layer_norm";
    const int first = static_cast<int>(b.graph().nodes.size());
    x = post_norm_layer(b, x, i, layer);
    // The first node the layer made is its attention: eager, with q x pe_k added to the scores.
    auto& attrs = *b.at(Value{first, {}}).attention;
    attrs.sdpa = false;
    attrs.relative_span = frames;
    attrs.c2p = true;
  }
  b.set_block(-1);
  return x;
}

Value decoder(GraphBuilder& b, Value x, const Value& memory, const Dims& d, const Scope& stack) {
  for (std::int64_t i = 0; i < d.decoder_layers; ++i) {
    b.set_block(static_cast<int>(d.encoder_layers + i));
    const Scope l = stack / "layers" / i;
    const BlockNames n{d.encoder_layers + i};
    auto h = attention(b, x, n.attention(), attention_spec(d, l / "self_attn", d.decoder_heads, true));
    b.at(h).attention->sdpa = false;
    h = norm(b, add(b, h, x, n.add(1)), n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
    auto cross = cross_attention(b, h, memory, fmt::format("Cross_Attention_{}", d.encoder_layers + i),
                                 attention_spec(d, l / "encoder_attn", d.decoder_heads, false));
    b.at(cross).attention->sdpa = false;
    h = norm(b, add(b, cross, h, n.add(2)), fmt::format("LayerNorm_{}_Cross", d.encoder_layers + i),
             {l / "encoder_attn_layer_norm"});
    auto f = feed_forward(b, h, n.ffn(), ffn_spec(d, l, d.decoder_ffn));
    x = norm(b, add(b, f, h, n.add(3)), n.norm(2, NormKind::LayerNorm), {l / "final_layer_norm"});
  }
  b.set_block(-1);
  return x;
}

Value speech_decoder_prenet(GraphBuilder& b, const Value& frames, const Dims& d, const Scope& prenet) {
  Value x = frames;
  std::int64_t width = d.mel;
  for (std::int64_t i = 0; i < d.prenet_layers; ++i) {
    // ReLU, then a dropout the reference applies in eval mode too (one mask shared across the batch).
    x = dense(b, x, fmt::format("Prenet_Linear_{}", i), prenet / "layers" / i, width, d.prenet_units, true, "relu");
    b.at(x).dropout = d.prenet_dropout;
    width = d.prenet_units;
  }
  x = dense(b, x, "Prenet_Final", prenet / "final_layer", width, d.hidden, true);
  x = scaled_positions(b, x, "Prenet_Positions", prenet / "encode_positions", d.max_speech, d.positional_dropout);
  // The speaker embedding, normalised and concatenated to every frame.
  return dense(b, Value{x.node, {x.shape.front(), d.hidden + d.speaker_dim}}, "Speaker_Embeds",
               prenet / "speaker_embeds_layer", d.speaker_dim + d.hidden, d.hidden, true, "relu");
}

Value speech_decoder_postnet(GraphBuilder& b, const Value& x, const Dims& d, const Scope& postnet) {
  const std::int64_t steps = x.shape.front();
  dense(b, x, "Stop_Logits", postnet / "prob_out", d.hidden, d.reduction, true);
  auto feats = dense(b, x, "Feat_Out", postnet / "feat_out", d.hidden, d.mel * d.reduction, true);
  // reduction_factor frames per decoder step: [steps * reduction, num_mel_bins].
  const Value before{feats.node, {steps * d.reduction, d.mel}};
  Value h = before;
  for (std::int64_t i = 0; i < d.postnet_layers; ++i) {
    const Scope l = postnet / "layers" / i;
    const bool last = i + 1 == d.postnet_layers;
    const std::int64_t in_dim = i == 0 ? d.mel : d.postnet_units, out_dim = last ? d.mel : d.postnet_units;
    h = conv1d(b, h, fmt::format("Postnet_Conv_{}", i),
               {.module = l / "conv", .in_channels = in_dim, .out_channels = out_dim, .kernel = d.postnet_kernel,
                .padding = (d.postnet_kernel - 1) / 2, .bias = false});
    h = batch_norm1d(b, h, fmt::format("Postnet_BatchNorm_{}", i), l / "batch_norm", last ? "" : "tanh");
    b.at(h).dropout = d.postnet_dropout;
  }
  return add(b, h, before, "Postnet_Residual");
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Dims d = read_dims(in.config);
  const bool tts = in.class_name == "SpeechT5ForTextToSpeech";
  const Scope root = in.head == Head::Base ? Scope() : Scope("speecht5");
  const Scope enc = root / "encoder", dec = root / "decoder";
  const std::int64_t cap = std::min(d.max_speech, kDefaultSequenceCap);

  Value x;
  if (tts) {
    auto ids = b.input({in.sequence_length(d.max_text)}, "tokens");
    x = token_embedding(b, ids, "Embedding", enc / "prenet" / "embed_tokens", d.vocab, d.hidden);
    x = scaled_positions(b, x, "Text_Positions", enc / "prenet" / "encode_positions", d.max_text,
                         d.positional_dropout);
  } else {
    x = b.input({in.sequence_length(cap), d.hidden}, "audio_features", "input_values");
  }
  const Value memory = encoder(b, x, d, enc / "wrapped_encoder");

  Value y;
  if (tts) {
    auto frames = b.input({in.target_length(cap), d.mel}, "audio_features", "decoder_input_values");
    y = speech_decoder_prenet(b, frames, d, dec / "prenet");
  } else {
    y = b.input({in.target_length(cap), d.hidden}, "audio_features", "decoder_input_values");
  }
  y = decoder(b, y, memory, d, dec / "wrapped_decoder");
  if (!tts) return y;
  return speech_decoder_postnet(b, y, d, Scope("speech_decoder_postnet"));
}

}  // namespace
}  // namespace speecht5_impl

const Family& speecht5_family() {
  static const Family family{"speecht5", "models/speecht5/modeling_speecht5.py",
                             classes("SpeechT5", {{"ForTextToSpeech", Head::PreTraining}}), speecht5_impl::build};
  return family;
}

}  // namespace neurarch::families
