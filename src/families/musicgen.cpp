// MusicGen (MusicgenForConditionalGeneration in models/musicgen/modeling_musicgen.py, transformers 4.47.1): a
// decoder over EnCodec's codes conditioned on text.
// - text_encoder: T5EncoderModel of text_encoder (t5_common), its output projected to the decoder's width by
//   enc_to_dec_proj when the widths differ (and cross_attention_hidden_size is unset).
// - audio_encoder: EncodecModel of audio_encoder (encodec.cpp): what turns audio into the decoder's codes and
//   back; built as its own branch from a waveform.
// - decoder (MusicgenForCausalLM, `decoder.model.decoder` + `decoder.lm_heads`): num_codebooks token tables
//   (vocab_size + 1 rows, the pad) summed per frame, a sinusoid embed_positions.weights [max_position_embeddings,
//   hidden] that 4.47.1 keeps as a frozen parameter, pre-norm layers with bias-free projections (self_attn,
//   encoder_attn, fc1 / fc2, biased LayerNorms), a final layer_norm and one bias-free lm_head per codebook, whose
//   logits are stacked.
// MusicGen Melody (musicgen_melody.cpp) drops encoder_attn and prefixes [chroma frames, text states] instead.
#include "families/musicgen.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "blocks/seq2seq.hpp"
#include "core/error.hpp"
#include "families/encodec.hpp"
#include "families/t5_common.hpp"

namespace neurarch::families {

using namespace blocks;
using graph::NodeType;

namespace musicgen {

DecoderDims read_decoder(const Config& c) {
  DecoderDims d;
  d.hidden = c.dim({"hidden_size"}, d.hidden);
  d.layers = c.dim({"num_hidden_layers"}, d.layers);
  d.heads = c.dim({"num_attention_heads"}, d.heads);
  d.ffn = c.dim({"ffn_dim"}, d.ffn);
  d.vocab = c.dim({"vocab_size"}, d.vocab);
  d.codebooks = c.dim({"num_codebooks"}, d.codebooks);
  d.positions = c.dim({"max_position_embeddings"}, d.positions);
  d.activation = c.text({"activation_function"}, d.activation);
  d.dropout = c.number({"dropout"}, d.dropout);
  d.attention_dropout = c.number({"attention_dropout"}, d.attention_dropout);
  d.activation_dropout = c.number({"activation_dropout"}, d.activation_dropout);
  return d;
}

namespace musicgen_impl {
namespace {

AttentionSpec attention_spec(const DecoderDims& d, const Scope& m, bool causal) {
  return {.hidden = d.hidden, .heads = d.heads, .causal = causal, .module = m, .q = m / "q_proj", .k = m / "k_proj",
          .v = m / "v_proj", .o = m / "out_proj", .qkv_bias = false, .o_bias = false,
          .dropout = d.attention_dropout, .output_dropout = d.dropout};
}

}  // namespace
}  // namespace musicgen_impl
using namespace musicgen_impl;

Value causal_lm(const BuildInput& in, GraphBuilder& b, const DecoderDims& d, const Scope& top,
                std::optional<Value> prefix, std::optional<Value> memory) {
  const Scope root = top / "model" / "decoder";
  const std::int64_t frames = in.target_length(std::min(d.positions, kDefaultSequenceCap));
  auto codes = b.input({frames}, "tokens", "decoder_input_ids");
  Value x;
  for (std::int64_t k = 0; k < d.codebooks; ++k) {
    auto e = token_embedding(b, codes, fmt::format("Codebook_Embedding_{}", k), root / "embed_tokens" / k,
                             d.vocab + 1, d.hidden);
    x = k == 0 ? e : add(b, e, x, fmt::format("Codebook_Sum_{}", k));
  }
  if (prefix) x = b.node(NodeType::Add, "Prefix_Concat", {prefix->shape.front() + frames, d.hidden}, {*prefix, x});
  // The sinusoid is regenerated for longer inputs, so it never limits the length.
  auto pos = b.node(NodeType::LearnedPosEmbed, "Sinusoidal_Position_Embedding", x.shape, {x}, root / "embed_positions");
  b.parameter(pos, (root / "embed_positions")("weights"), {d.positions, d.hidden}, graph::TensorRole::Embedding);
  b.freeze(pos);
  b.at(pos).dropout = d.dropout;
  x = pos;
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(b.next_block());
    const Scope l = root / "layers" / i;
    const BlockNames n{i};
    auto h = norm(b, x, n.norm(1, NormKind::LayerNorm), {l / "self_attn_layer_norm"});
    h = attention(b, h, n.attention(), attention_spec(d, l / "self_attn", true));
    x = add(b, h, x, n.add(1));
    if (memory) {
      h = norm(b, x, fmt::format("LayerNorm_{}_Cross", i), {l / "encoder_attn_layer_norm"});
      h = cross_attention(b, h, *memory, fmt::format("Cross_Attention_{}", i),
                          attention_spec(d, l / "encoder_attn", false));
      x = add(b, h, x, fmt::format("Add_{}_Cross", i));
    }
    h = norm(b, x, n.norm(2, NormKind::LayerNorm), {l / "final_layer_norm"});
    h = feed_forward(b, h, n.ffn(),
                     {.hidden = d.hidden, .intermediate = d.ffn, .activation = d.activation, .module = l,
                      .up = l / "fc1", .down = l / "fc2", .bias = false, .down_bias = false,
                      .output_dropout = d.dropout, .inner_dropout = d.activation_dropout});
    x = add(b, h, x, n.add(2));
  }
  b.set_block(-1);
  x = norm(b, x, "Final_LayerNorm", {root / "layer_norm"});
  Value logits;
  for (std::int64_t k = 0; k < d.codebooks; ++k)
    logits = lm_head(b, x, fmt::format("LM_Head_{}", k),
                     {.module = top / "lm_heads" / k, .hidden = d.hidden, .vocab = d.vocab});
  // torch.stack of the heads' logits.
  return b.node(NodeType::Add, "Stacked_Logits", {d.codebooks * x.shape.front(), d.vocab}, {logits});
}


Value model(const BuildInput& in, GraphBuilder& b, Conditioning conditioning) {
  const Config& c = in.config;
  const Config text_config = c.child("text_encoder");
  const Config audio_config = c.child("audio_encoder");
  const Config decoder_config = c.child("decoder");
  const std::string text_type = text_config.text({"model_type"}, "t5");
  if (text_type != "t5")
    throw Error(ErrorKind::Unsupported, c.origin() + ": text_encoder: key 'model_type'",
                fmt::format("MusicGen's text encoder '{}' is not supported (t5 is)", text_type));
  const DecoderDims d = read_decoder(decoder_config);

  Value text;
  {
    graph::Nested nest(b, {.module = "text_encoder", .label = "Text_", .first_block = 0});
    const BuildInput text_in{text_config, "T5EncoderModel", Head::Base, in.requested_seq, std::nullopt};
    text = t5::build(text_in, b, t5::Layout{});
  }
  const std::int64_t text_hidden = text.shape.back();
  const bool cross_width = decoder_config.raw({"cross_attention_hidden_size"}) != nullptr;
  if (text_hidden != d.hidden && (conditioning == Conditioning::Prefix || !cross_width))
    text = dense(b, text, "Enc_To_Dec_Projection", Scope("enc_to_dec_proj"), text_hidden, d.hidden, true);
  {
    graph::Nested nest(b, {.module = "audio_encoder", .label = "Codec_", .first_block = b.next_block()});
    const BuildInput audio_in{audio_config, "EncodecModel", Head::Base, std::nullopt, std::nullopt};
    encodec::model(audio_in, b, audio_config);
  }
  if (conditioning == Conditioning::CrossAttention) return causal_lm(in, b, d, Scope("decoder"), std::nullopt, text);

  // Melody: the chroma of the conditioning audio [chroma_length, num_chroma], projected when its width is not
  // the decoder's, then the text states, then the codes.
  const std::int64_t chroma = c.dim({"num_chroma"}, 12);
  const std::int64_t chroma_length = c.dim({"chroma_length"}, 235);
  Value audio = b.input({chroma_length, chroma}, "audio_features", "input_features");
  if (chroma != d.hidden)
    audio = dense(b, audio, "Audio_Enc_To_Dec_Projection", Scope("audio_enc_to_dec_proj"), chroma, d.hidden, true);
  auto prefix = b.node(NodeType::Add, "Conditioning_Concat", {chroma_length + text.shape.front(), d.hidden},
                       {audio, text});
  return causal_lm(in, b, d, Scope("decoder"), prefix, std::nullopt);
}

}  // namespace musicgen

namespace musicgen_impl {
namespace {
Value build(const BuildInput& in, GraphBuilder& b) {
  return musicgen::model(in, b, musicgen::Conditioning::CrossAttention);
}
}  // namespace
}  // namespace musicgen_impl

const Family& musicgen_family() {
  static const Family family{"musicgen", "models/musicgen/modeling_musicgen.py",
                             {{"MusicgenForConditionalGeneration", Head::CausalLM}}, musicgen_impl::build};
  return family;
}

}  // namespace neurarch::families
