// Moonshine (models/moonshine/modeling_moonshine.py + configuration_moonshine.py, transformers 4.57.6): a speech
// encoder-decoder over the raw 16 kHz waveform. The encoder's stem: conv1 (1 -> hidden, kernel 127, stride 64, no
// bias) -> tanh -> GroupNorm of one group (a norm over the channels, with weight and bias) -> conv2 (-> 2 x hidden,
// kernel 7, stride 3) -> GELU -> conv3 (-> hidden, kernel 3, stride 2) -> GELU; then pre-norm layers whose
// LayerNorms have no bias (input_layernorm, post_attention_layernorm), attention with rotary positions on
// partial_rotary_factor of each head (q/k/v biased as attention_bias says, o_proj never), an fc1 -> act -> fc2 MLP,
// and a bias-free layer_norm. The decoder: embed_tokens, layers of causal self-attention, cross-attention to the
// encoder (encoder_attn) and a SwiGLU MLP whose fc1 holds both halves ([2 x intermediate, hidden]), each after its
// own bias-free norm, then `norm`. MoonshineForConditionalGeneration adds proj_out, tied to embed_tokens. The audio
// defaults to one second (--seq sets the samples; --target-seq the decoder's tokens).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "blocks/conv.hpp"
#include "blocks/seq2seq.hpp"
#include "families/wav2vec2_common.hpp"

namespace neurarch::families {
namespace moonshine_impl {
namespace {

using namespace blocks;

struct Side {
  std::int64_t layers = 6, heads = 8, kv_heads = 8;
  std::string activation;
};

AttentionSpec attention_spec(const Scope& attn, std::int64_t hidden, const Side& s, bool causal, bool rotary, bool bias,
                             double dropout) {
  return AttentionSpec{.hidden = hidden, .heads = s.heads, .kv_heads = s.kv_heads, .causal = causal, .module = attn,
                       .q = attn / "q_proj", .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "o_proj",
                       .qkv_bias = bias, .o_bias = false, .dropout = dropout, .rotary = rotary};
}

Side read_side(const Config& c, std::string_view side, const std::string& activation) {
  Side s;
  s.layers = c.dim({fmt::format("{}_num_hidden_layers", side)}, 6);
  s.heads = c.dim({fmt::format("{}_num_attention_heads", side)}, 8);
  const std::string kv_key = fmt::format("{}_num_key_value_heads", side);
  // None: as many key/value heads as query heads.
  s.kv_heads = c.raw({kv_key}) && !c.raw({kv_key})->is_null() ? c.dim({kv_key}) : s.heads;
  s.activation = c.text({fmt::format("{}_hidden_act", side)}, activation);
  return s;
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 32768);
  const std::int64_t hidden = c.dim({"hidden_size"}, 288);
  const std::int64_t intermediate = c.dim({"intermediate_size"}, 1152);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 512);
  const bool bias = c.flag({"attention_bias"}, false);
  const double dropout = c.number({"attention_dropout"}, 0.0);
  const bool tie = c.flag({"tie_word_embeddings"}, true);
  const Side enc = read_side(c, "encoder", "gelu");
  const Side dec = read_side(c, "decoder", "silu");
  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  const auto bare = [](const Scope& module) { return NormSpec{module, NormKind::LayerNorm, false}; };

  // Encoder.
  const Scope encoder = root / "encoder";
  auto x = b.input({in.requested_seq ? *in.requested_seq : wav2vec2::kDefaultSamples}, "audio", "input_values");
  x = conv1d(b, x, "Conv1",
             {.module = encoder / "conv1", .in_channels = 1, .out_channels = hidden, .kernel = 127, .stride = 64,
              .bias = false, .activation = "tanh"},
             TimeLayout::Mono);
  x = norm(b, x, "GroupNorm", {encoder / "groupnorm"});
  x = conv1d(b, x, "Conv2",
             {.module = encoder / "conv2", .in_channels = hidden, .out_channels = 2 * hidden, .kernel = 7, .stride = 3,
              .activation = "gelu"});
  x = conv1d(b, x, "Conv3",
             {.module = encoder / "conv3", .in_channels = 2 * hidden, .out_channels = hidden, .kernel = 3, .stride = 2,
              .activation = "gelu"});
  for (std::int64_t i = 0; i < enc.layers; ++i) {
    const Scope l = encoder / "layers" / i;
    PreNormLayer layer;
    layer.norm1 = bare(l / "input_layernorm");
    layer.attention = attention_spec(l / "self_attn", hidden, enc, false, true, bias, dropout);
    layer.norm2 = bare(l / "post_attention_layernorm");
    layer.ffn = {.hidden = hidden, .intermediate = intermediate, .activation = enc.activation, .module = l / "mlp",
                 .up = l / "mlp" / "fc1", .down = l / "mlp" / "fc2"};
    b.set_block(static_cast<int>(i));
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  const Value memory = norm(b, x, "Encoder_LayerNorm", bare(encoder / "layer_norm"));

  // Decoder.
  const Scope decoder = root / "decoder";
  auto ids = b.input({in.target_length(positions)}, "tokens", "decoder_input_ids");
  auto y = token_embedding(b, ids, "Decoder_Token_Embedding", decoder / "embed_tokens", vocab, hidden);
  for (std::int64_t i = 0; i < dec.layers; ++i) {
    const Scope l = decoder / "layers" / i;
    const BlockNames n{i};
    const std::string p = "Decoder_";
    b.set_block(static_cast<int>(enc.layers + i));
    auto h = norm(b, y, p + n.norm(1, NormKind::LayerNorm), bare(l / "input_layernorm"));
    h = attention(b, h, p + n.attention(), attention_spec(l / "self_attn", hidden, dec, true, true, bias, dropout));
    y = add(b, h, y, p + n.add(1));
    h = norm(b, y, p + n.norm(2, NormKind::LayerNorm), bare(l / "post_attention_layernorm"));
    h = cross_attention(b, h, memory, fmt::format("Decoder_Cross_Attention_{}", i),
                        attention_spec(l / "encoder_attn", hidden, dec, false, false, bias, dropout));
    y = add(b, h, y, p + n.add(2));
    h = norm(b, y, p + n.norm(3, NormKind::LayerNorm), bare(l / "final_layernorm"));
    const Scope mlp = l / "mlp";
    h = feed_forward(b, h, p + n.ffn(),
                     {.hidden = hidden, .intermediate = intermediate, .activation = dec.activation, .gated = true,
                      .module = mlp, .down = mlp / "fc2", .gate_up = mlp / "fc1"});
    y = add(b, h, y, p + n.add(3));
  }
  b.set_block(-1);
  y = norm(b, y, "Decoder_Norm", bare(decoder / "norm"));
  if (in.head != Head::Seq2SeqLM) return y;
  LmHeadSpec head{.module = Scope("proj_out"), .hidden = hidden, .vocab = vocab};
  if (tie) head.tied_weight = (decoder / "embed_tokens")("weight");
  return lm_head(b, y, "LM_Head", head);
}

}  // namespace
}  // namespace moonshine_impl

const Family& moonshine_family() {
  static const Family family{"moonshine", "models/moonshine/modeling_moonshine.py",
                             classes("Moonshine", {heads::ForConditionalGeneration}), moonshine_impl::build};
  return family;
}

}  // namespace neurarch::families
