// Whisper (models/whisper/modeling_whisper.py + configuration_whisper.py, transformers 4.47.1).
// The encoder reads log-mel features [num_mel_bins, frames]: conv1 (kernel 3, padding 1) and
// conv2 (kernel 3, stride 2, padding 1), each followed by GELU, halve the frames, and the
// reference refuses any input whose frames are not 2 x max_source_positions (3000: 30 s). A
// fixed sinusoid is stored as encoder.embed_positions.weight; the decoder has its own token table
// and learned positions (max_target_positions). Pre-norm layers; k_proj has no bias. The LM head
// is proj_out, tied to the decoder's tokens. WhisperForCausalLM runs the decoder alone.
#include <fmt/format.h>

#include "blocks/conv.hpp"
#include "blocks/seq2seq.hpp"
#include "families/whisper.hpp"

namespace neurarch::families {
namespace whisper_impl {
namespace {

using namespace blocks;

struct Dims {
  whisper::EncoderDims encoder;
  std::int64_t vocab = 0, d_model = 0, target_positions = 0;
  std::int64_t decoder_layers = 0, decoder_heads = 0, decoder_ffn = 0;
  double dropout = 0, attention_dropout = 0;
};

Dims read_dims(const Config& c) {
  Dims d;
  d.vocab = c.dim({"vocab_size"}, 51865);
  d.encoder = whisper::read_encoder(c, {});
  d.d_model = d.encoder.d_model;
  d.target_positions = c.dim({"max_target_positions"}, 448);
  d.decoder_layers = c.dim({"decoder_layers"}, 4);
  d.decoder_heads = c.dim({"decoder_attention_heads"}, 6);
  d.decoder_ffn = c.dim({"decoder_ffn_dim"}, 1536);
  d.dropout = d.encoder.dropout;
  d.attention_dropout = d.encoder.attention_dropout;
  return d;
}

// q, v and out_proj have biases; k_proj does not (the reference builds it with bias=False).
AttentionSpec attention_spec(const whisper::EncoderDims& d, const Scope& attn, std::int64_t heads, bool causal) {
  return AttentionSpec{.hidden = d.d_model, .heads = heads, .causal = causal, .module = attn, .q = attn / "q_proj",
                       .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj",
                       .dropout = d.attention_dropout, .output_dropout = d.dropout, .k_bias = false};
}

FeedForwardSpec ffn_spec(const whisper::EncoderDims& d, const Scope& layer, std::int64_t ffn) {
  return FeedForwardSpec{.hidden = d.d_model, .intermediate = ffn, .activation = d.activation, .module = layer,
                         .up = layer / "fc1", .down = layer / "fc2", .output_dropout = d.dropout,
                         .inner_dropout = d.activation_dropout};
}

class Builder {
 public:
  Builder(const BuildInput& in, GraphBuilder& b, const Dims& d) : in_(in), b_(b), d_(d) {}

  Value encoder(const Scope& stack) {
    auto x = whisper::encoder_layers(in_, b_, d_.encoder, stack);
    return norm(b_, x, "Encoder_Final_LayerNorm", {stack / "layer_norm"});
  }

  /// `memory` absent: the decoder run alone, whose encoder_attn weights are stored but unused.
  Value decoder(const Value& ids, const std::optional<Value>& memory, const Scope& stack, int first_block) {
    auto x = token_embedding(b_, ids, "Decoder_Token_Embedding", stack / "embed_tokens", d_.vocab, d_.d_model);
    x = learned_positions(b_, x, "Decoder_Position_Embedding", stack / "embed_positions", d_.target_positions,
                          d_.d_model);
    b_.at(x).dropout = d_.dropout;
    const std::string p = "Decoder_";
    for (std::int64_t i = 0; i < d_.decoder_layers; ++i) {
      b_.set_block(first_block + static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      const BlockNames n{i};
      auto h = norm(b_, x, p + n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
      h = attention(b_, h, p + n.attention(), attention_spec(l / "self_attn", d_.decoder_heads, true));
      x = add(b_, h, x, p + n.add(1));
      if (memory) {
        h = norm(b_, x, p + n.norm(2, NormKind::LayerNorm), {l / "encoder_attn_layer_norm"});
        h = cross_attention(b_, h, *memory, fmt::format("Decoder_Cross_Attention_{}", i),
                            attention_spec(l / "encoder_attn", d_.decoder_heads, false));
        x = add(b_, h, x, p + n.add(2));
      } else {
        unused_cross_attention(x, l);
      }
      h = norm(b_, x, p + n.norm(3, NormKind::LayerNorm), {l / "final_layer_norm"});
      h = feed_forward(b_, h, p + n.ffn(), ffn_spec(l, d_.decoder_ffn));
      x = add(b_, h, x, p + n.add(3));
    }
    b_.set_block(-1);
    return norm(b_, x, "Decoder_Final_LayerNorm", {stack / "layer_norm"});
  }

 private:
  AttentionSpec attention_spec(const Scope& attn, std::int64_t heads, bool causal) const {
    return whisper_impl::attention_spec(d_.encoder, attn, heads, causal);
  }
  FeedForwardSpec ffn_spec(const Scope& layer, std::int64_t ffn) const {
    return whisper_impl::ffn_spec(d_.encoder, layer, ffn);
  }

  void unused_cross_attention(const Value& owner, const Scope& layer) {
    const Scope attn = layer / "encoder_attn";
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      linear_tensors(b_, owner, attn / proj, d_.d_model, d_.d_model, std::string_view(proj) != "k_proj",
                     graph::Operand::Idle);
    b_.parameter(owner, (layer / "encoder_attn_layer_norm")("weight"), {d_.d_model}, graph::TensorRole::Norm,
                 graph::Operand::Idle);
    b_.parameter(owner, (layer / "encoder_attn_layer_norm")("bias"), {d_.d_model}, graph::TensorRole::Bias,
                 graph::Operand::Idle);
    if (!noted_) {
      b_.note(fmt::format("{} runs the decoder without encoder states: every layer stores encoder_attn weights it "
                          "never uses",
                          in_.class_name));
      noted_ = true;
    }
  }

  const BuildInput& in_;
  GraphBuilder& b_;
  const Dims& d_;
  bool noted_ = false;
};

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const Dims d = read_dims(c);
  const bool tie = c.flag({"tie_word_embeddings"}, true);
  Builder builder(in, b, d);

  if (in.head == Head::CausalLM) {
    const Scope stack = Scope("model") / "decoder";
    auto ids = b.input({in.sequence_length(d.target_positions)}, "tokens");
    auto x = builder.decoder(ids, std::nullopt, stack, 0);
    LmHeadSpec head{.module = Scope("proj_out"), .hidden = d.d_model, .vocab = d.vocab};
    if (tie) head.tied_weight = (stack / "embed_tokens")("weight");
    return lm_head(b, x, "LM_Head", head);
  }

  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  auto memory = builder.encoder(root / "encoder");
  auto ids = b.input({in.target_length(d.target_positions)}, "tokens", "decoder_input_ids");
  auto x = builder.decoder(ids, memory, root / "decoder", static_cast<int>(d.encoder.layers));
  if (in.head == Head::Seq2SeqLM) {
    LmHeadSpec head{.module = Scope("proj_out"), .hidden = d.d_model, .vocab = d.vocab};
    if (tie) head.tied_weight = (root / "decoder" / "embed_tokens")("weight");
    return lm_head(b, x, "LM_Head", head);
  }
  return x;
}

}  // namespace
}  // namespace whisper_impl
using namespace whisper_impl;

namespace whisper {

EncoderDims read_encoder(const Config& c, const EncoderDefaults& defaults) {
  EncoderDims d;
  d.d_model = c.dim({"d_model", "hidden_size"}, defaults.d_model);
  d.mel_bins = c.dim({"num_mel_bins"}, defaults.mel_bins);
  d.source_positions = c.dim({"max_source_positions"}, defaults.source_positions);
  d.layers = c.dim({"encoder_layers", "num_hidden_layers"}, defaults.layers);
  d.heads = c.dim({"encoder_attention_heads", "num_attention_heads"}, defaults.heads);
  d.ffn = c.dim({"encoder_ffn_dim", "intermediate_size"}, defaults.ffn);
  d.activation = c.text({"activation_function"}, "gelu");
  d.dropout = c.number({"dropout"}, 0.0);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  d.activation_dropout = c.number({"activation_dropout"}, 0.0);
  return d;
}

Value encoder_layers(const BuildInput& in, GraphBuilder& b, const EncoderDims& d, const Scope& stack) {
  // Frames are fixed by the reference: it pads or trims audio to 30 s before the model.
  const std::int64_t expected = 2 * d.source_positions;
  const std::int64_t frames = in.requested_seq ? *in.requested_seq : expected;
  auto x = b.input({d.mel_bins, frames}, "audio_features");
  x = conv1d(b, x, "Conv1",
             {.module = stack / "conv1", .in_channels = d.mel_bins, .out_channels = d.d_model, .kernel = 3,
              .padding = 1, .activation = "gelu"},
             TimeLayout::ChannelsFirst);
  if (frames != expected)
    b.fail(x, fmt::format("the encoder expects input features of length {} (2 x max_source_positions), got {}",
                          expected, frames));
  x = conv1d(b, x, "Conv2",
             {.module = stack / "conv2", .in_channels = d.d_model, .out_channels = d.d_model, .kernel = 3,
              .stride = 2, .padding = 1, .activation = "gelu"});
  // The sinusoid is added whole (not looked up), and frozen: the encoder calls
  // embed_positions.requires_grad_(False).
  x = learned_positions(b, x, "Sinusoidal_Position_Embedding", stack / "embed_positions", d.source_positions,
                        d.d_model);
  b.freeze(x);
  b.at(x).dropout = d.dropout;
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = stack / "layers" / i;
    // Filled member by member: g++ 12 misreads the nested designated initializer under -fPIC
    // (a maybe-uninitialized false positive on the norms' module strings).
    PreNormLayer layer;
    layer.norm1.module = l / "self_attn_layer_norm";
    layer.attention = whisper_impl::attention_spec(d, l / "self_attn", d.heads, false);
    layer.norm2.module = l / "final_layer_norm";
    layer.ffn = whisper_impl::ffn_spec(d, l, d.ffn);
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  return x;
}

}  // namespace whisper

const Family& whisper_family() {
  static const Family family{"whisper", "models/whisper/modeling_whisper.py",
                             classes("Whisper", {heads::ForConditionalGeneration, heads::ForCausalLM}), whisper_impl::build};
  return family;
}

}  // namespace neurarch::families
