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
#include "families/family.hpp"

namespace neurarch::families {
namespace {

using namespace blocks;

struct Dims {
  std::int64_t vocab = 0, d_model = 0, mel_bins = 0, source_positions = 0, target_positions = 0;
  std::int64_t encoder_layers = 0, encoder_heads = 0, encoder_ffn = 0;
  std::int64_t decoder_layers = 0, decoder_heads = 0, decoder_ffn = 0;
  std::string activation;
  double dropout = 0, attention_dropout = 0, activation_dropout = 0;
};

Dims read_dims(const Config& c) {
  Dims d;
  d.vocab = c.dim({"vocab_size"}, 51865);
  d.d_model = c.dim({"d_model", "hidden_size"}, 384);
  d.mel_bins = c.dim({"num_mel_bins"}, 80);
  d.source_positions = c.dim({"max_source_positions"}, 1500);
  d.target_positions = c.dim({"max_target_positions"}, 448);
  d.encoder_layers = c.dim({"encoder_layers", "num_hidden_layers"}, 4);
  d.encoder_heads = c.dim({"encoder_attention_heads", "num_attention_heads"}, 6);
  d.encoder_ffn = c.dim({"encoder_ffn_dim"}, 1536);
  d.decoder_layers = c.dim({"decoder_layers"}, 4);
  d.decoder_heads = c.dim({"decoder_attention_heads"}, 6);
  d.decoder_ffn = c.dim({"decoder_ffn_dim"}, 1536);
  d.activation = c.text({"activation_function"}, "gelu");
  d.dropout = c.number({"dropout"}, 0.0);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  d.activation_dropout = c.number({"activation_dropout"}, 0.0);
  return d;
}

class Builder {
 public:
  Builder(const BuildInput& in, GraphBuilder& b, const Dims& d) : in_(in), b_(b), d_(d) {}

  Value encoder(const Scope& stack) {
    // Frames are fixed by the reference: it pads or trims audio to 30 s before the model.
    const std::int64_t expected = 2 * d_.source_positions;
    const std::int64_t frames = in_.requested_seq ? *in_.requested_seq : expected;
    auto x = b_.input({d_.mel_bins, frames}, "audio_features");
    x = conv1d(b_, x, "Conv1",
               {.module = stack / "conv1", .in_channels = d_.mel_bins, .out_channels = d_.d_model, .kernel = 3,
                .padding = 1, .activation = "gelu"},
               TimeLayout::ChannelsFirst);
    if (frames != expected)
      b_.fail(x, fmt::format("Whisper expects input features of length {} (2 x max_source_positions), got {}",
                             expected, frames));
    x = conv1d(b_, x, "Conv2",
               {.module = stack / "conv2", .in_channels = d_.d_model, .out_channels = d_.d_model, .kernel = 3,
                .stride = 2, .padding = 1, .activation = "gelu"});
    // The sinusoid is added whole (not looked up), and frozen: WhisperEncoder calls
    // embed_positions.requires_grad_(False).
    x = learned_positions(b_, x, "Sinusoidal_Position_Embedding", stack / "embed_positions", d_.source_positions,
                          d_.d_model);
    b_.freeze(x);
    b_.at(x).dropout = d_.dropout;
    for (std::int64_t i = 0; i < d_.encoder_layers; ++i) {
      b_.set_block(static_cast<int>(i));
      const Scope l = stack / "layers" / i;
      // Filled member by member: g++ 12 misreads the nested designated initializer under -fPIC
      // (a maybe-uninitialized false positive on the norms' module strings).
      PreNormLayer layer;
      layer.norm1.module = l / "self_attn_layer_norm";
      layer.attention = attention_spec(l / "self_attn", d_.encoder_heads, false);
      layer.norm2.module = l / "final_layer_norm";
      layer.ffn = ffn_spec(l, d_.encoder_ffn);
      x = pre_norm_layer(b_, x, i, layer);
    }
    b_.set_block(-1);
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
  // q, v and out_proj have biases; k_proj does not (the reference builds it with bias=False).
  AttentionSpec attention_spec(const Scope& attn, std::int64_t heads, bool causal) const {
    return AttentionSpec{.hidden = d_.d_model, .heads = heads, .causal = causal, .module = attn,
                         .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj",
                         .dropout = d_.attention_dropout, .output_dropout = d_.dropout, .k_bias = false};
  }

  FeedForwardSpec ffn_spec(const Scope& layer, std::int64_t ffn) const {
    return FeedForwardSpec{.hidden = d_.d_model, .intermediate = ffn, .activation = d_.activation, .module = layer,
                           .up = layer / "fc1", .down = layer / "fc2", .output_dropout = d_.dropout,
                           .inner_dropout = d_.activation_dropout};
  }

  void unused_cross_attention(const Value& owner, const Scope& layer) {
    const Scope attn = layer / "encoder_attn";
    for (const char* proj : {"k_proj", "v_proj", "q_proj", "out_proj"})
      linear_tensors(b_, owner, attn / proj, d_.d_model, d_.d_model, std::string_view(proj) != "k_proj");
    b_.parameter(owner, (layer / "encoder_attn_layer_norm")("weight"), {d_.d_model});
    b_.parameter(owner, (layer / "encoder_attn_layer_norm")("bias"), {d_.d_model});
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
  auto x = builder.decoder(ids, memory, root / "decoder", static_cast<int>(d.encoder_layers));
  if (in.head == Head::Seq2SeqLM) {
    LmHeadSpec head{.module = Scope("proj_out"), .hidden = d.d_model, .vocab = d.vocab};
    if (tie) head.tied_weight = (root / "decoder" / "embed_tokens")("weight");
    return lm_head(b, x, "LM_Head", head);
  }
  return x;
}

}  // namespace

const Family& whisper_family() {
  static const Family family{"whisper", "models/whisper/modeling_whisper.py",
                             classes("Whisper", {heads::ForConditionalGeneration, heads::ForCausalLM}), build};
  return family;
}

}  // namespace neurarch::families
