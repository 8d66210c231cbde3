// Dia (DiaModel / DiaForConditionalGeneration in models/dia/modeling_dia.py, transformers 4.57.6; 5.24 checked):
// a text-to-speech encoder-decoder over byte tokens and num_channels parallel streams of audio codes.
// - encoder (encoder_config): a byte `embedding`, Llama-style pre-norm layers (pre_sa_norm, bidirectional
//   self_attention with RoPE and grouped KV heads, post_sa_norm, an MLP whose gate and up projections are one
//   fused gate_up_proj), RMS `norm`. No projection has a bias.
// - decoder (decoder_config): embeddings.embed, one table of vocab_size x num_channels rows that every channel reads
//   at its own offset, the lookups summed per frame; layers of causal self_attention (RoPE), cross_attention over
//   the encoder (cross_num_attention_heads / cross_num_key_value_heads of cross_head_dim, keys and values from
//   cross_hidden_size, no RoPE) and the fused MLP, each behind its own RMS norm (pre_sa / pre_ca / pre_mlp); `norm`.
// - DiaForConditionalGeneration wraps the model as `model` and adds logits_dense, one bias-free projection to
//   num_channels x vocab_size logits.
#include <algorithm>

#include <fmt/format.h>

#include "blocks/blocks.hpp"

#include "blocks/seq2seq.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace dia_impl {
namespace {

using namespace blocks;

struct StackDims {
  std::int64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0,
               positions = 0;
  std::string activation;
};

// The keys both DiaEncoderConfig and DiaDecoderConfig declare, with the defaults of the one read.
StackDims read_stack(const Config& c, const StackDims& defaults) {
  StackDims d;
  d.hidden = c.dim({"hidden_size"}, defaults.hidden);
  d.layers = c.dim({"num_hidden_layers"}, defaults.layers);
  d.heads = c.dim({"num_attention_heads"}, defaults.heads);
  d.kv_heads = c.dim({"num_key_value_heads"}, defaults.kv_heads);
  d.head_dim = c.dim({"head_dim"}, defaults.head_dim);
  d.intermediate = c.dim({"intermediate_size"}, defaults.intermediate);
  d.vocab = c.dim({"vocab_size"}, defaults.vocab);
  d.positions = c.dim({"max_position_embeddings"}, defaults.positions);
  d.activation = c.text({"hidden_act"}, defaults.activation);
  return d;
}

AttentionSpec self_attention_spec(const StackDims& d, const Scope& m, bool causal) {
  return {.hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads, .head_dim = d.head_dim, .causal = causal,
          .module = m, .q = m / "q_proj", .k = m / "k_proj", .v = m / "v_proj", .o = m / "o_proj",
          .qkv_bias = false, .o_bias = false, .require_divisible = false, .rotary = true};
}

FeedForwardSpec mlp_spec(const StackDims& d, const Scope& m) {
  return {.hidden = d.hidden, .intermediate = d.intermediate, .activation = d.activation, .gated = true,
          .module = m, .down = m / "down_proj", .gate_up = m / "gate_up_proj", .bias = false, .down_bias = false};
}

NormSpec rms(const Scope& m) { return {m, NormKind::RMSNorm, false}; }

Value encoder(const BuildInput& in, GraphBuilder& b, const Config& c, const Scope& root, Value& bytes) {
  const StackDims d = read_stack(c, {.hidden = 1024, .layers = 12, .heads = 16, .kv_heads = 16, .head_dim = 128,
                                     .intermediate = 4096, .vocab = 256, .positions = 1024, .activation = "silu"});
  bytes = b.input({in.sequence_length(d.positions)}, "tokens");
  auto x = token_embedding(b, bytes, "Byte_Embedding", root / "embedding", d.vocab, d.hidden);
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(b.next_block());
    const Scope l = root / "layers" / i;
    x = pre_norm_layer(b, x, i,
                       {.norm1 = rms(l / "pre_sa_norm"),
                        .attention = self_attention_spec(d, l / "self_attention", false),
                        .norm2 = rms(l / "post_sa_norm"),
                        .ffn = mlp_spec(d, l / "mlp")});
  }
  b.set_block(-1);
  return norm(b, x, "Final_RMSNorm", rms(root / "norm"));
}

struct DecoderDims {
  StackDims d;
  std::int64_t cross_heads = 0, cross_kv_heads = 0, cross_head_dim = 0, cross_hidden = 0, channels = 0;
};

DecoderDims read_decoder(const Config& c) {
  DecoderDims d;
  d.d = read_stack(c, {.hidden = 2048, .layers = 18, .heads = 16, .kv_heads = 4, .head_dim = 128,
                       .intermediate = 8192, .vocab = 1028, .positions = 3072, .activation = "silu"});
  d.cross_heads = c.dim({"cross_num_attention_heads"}, 16);
  d.cross_kv_heads = c.dim({"cross_num_key_value_heads"}, 16);
  d.cross_head_dim = c.dim({"cross_head_dim"}, 128);
  d.cross_hidden = c.dim({"cross_hidden_size"}, 1024);
  d.channels = c.dim({"num_channels"}, 9);
  return d;
}

// DiaMultiChannelEmbedding: every channel's code shifted by channel x vocab_size into one table, then summed.
Value decoder_embedding(const BuildInput& in, GraphBuilder& b, const DecoderDims& dec, const Scope& root) {
  const StackDims& d = dec.d;
  const std::int64_t frames = in.target_length(std::min(d.positions, kDefaultSequenceCap));
  auto codes = b.input({frames, dec.channels}, "tokens", "decoder_input_ids");
  auto x = b.node(graph::NodeType::Embedding, "Multi_Channel_Embedding", {frames, d.hidden}, {codes},
                  root / "embeddings" / "embed");
  b.parameter(x, (root / "embeddings" / "embed")("weight"), {d.vocab * dec.channels, d.hidden}, graph::TensorRole::Embedding);
  return x;
}

Value decoder_layers(GraphBuilder& b, Value x, const DecoderDims& dec, const Scope& root, const Value& memory) {
  const StackDims& d = dec.d;
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(b.next_block());
    const Scope l = root / "layers" / i;
    const BlockNames n{i};
    auto h = norm(b, x, n.norm(1, NormKind::RMSNorm), rms(l / "pre_sa_norm"));
    h = attention(b, h, n.attention(), self_attention_spec(d, l / "self_attention", true));
    x = add(b, h, x, n.add(1));
    const Scope cross = l / "cross_attention";
    h = norm(b, x, fmt::format("RMSNorm_{}_Cross", i), rms(l / "pre_ca_norm"));
    h = cross_attention(b, h, memory, fmt::format("Cross_Attention_{}", i),
                        {.hidden = d.hidden, .heads = dec.cross_heads, .kv_heads = dec.cross_kv_heads,
                         .head_dim = dec.cross_head_dim, .module = cross, .q = cross / "q_proj",
                         .k = cross / "k_proj", .v = cross / "v_proj", .o = cross / "o_proj", .qkv_bias = false,
                         .o_bias = false, .require_divisible = false},
                        dec.cross_hidden);
    x = add(b, h, x, fmt::format("Add_{}_Cross", i));
    h = norm(b, x, n.norm(2, NormKind::RMSNorm), rms(l / "pre_mlp_norm"));
    h = feed_forward(b, h, n.ffn(), mlp_spec(d, l / "mlp"));
    x = add(b, h, x, n.add(2));
  }
  b.set_block(-1);
  return norm(b, x, "Decoder_Final_RMSNorm", rms(root / "norm"));
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const bool head = in.head == Head::Seq2SeqLM;
  const Scope root = head ? Scope("model") : Scope();
  const DecoderDims dec = read_decoder(c.child("decoder_config"));
  // DiaConfig's pad / bos / eos ids are audio codes, rows of the decoder's table: it is the model's first token
  // table. The encoder's byte ids stay the main input.
  auto x = decoder_embedding(in, b, dec, root / "decoder");
  Value memory, bytes;
  {
    // The encoder's layers are named apart from the decoder's (Encoder_Attention_0 ...).
    graph::Nested nest(b, {.module = "", .label = "Encoder_", .first_block = 0});
    memory = encoder(in, b, c.child("encoder_config"), root / "encoder", bytes);
  }
  b.set_main_input(bytes);
  x = decoder_layers(b, x, dec, root / "decoder", memory);
  if (!head) return x;
  // logits_dense gives every channel's logits at once, viewed as [frames, channels, vocab].
  return lm_head(b, x, "Logits_Dense",
                 {.module = Scope("logits_dense"), .hidden = x.shape.back(), .vocab = dec.channels * dec.d.vocab});
}

}  // namespace
}  // namespace dia_impl

const Family& dia_family() {
  static const Family family{"dia", "models/dia/modeling_dia.py", classes("Dia", {heads::ForConditionalGeneration}),
                             dia_impl::build};
  return family;
}

}  // namespace neurarch::families
