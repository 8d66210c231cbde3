// Moshi's text model (MoshiModel / MoshiForCausalLM in models/moshi/modeling_moshi.py, transformers 4.47.1; 5.24
// checked): the temporal transformer that MoshiForConditionalGeneration wraps, on its own.
// - embed_tokens: vocab_size + 1 rows (the last one the padding id).
// - layers: input_layernorm / post_attention_layernorm (MoshiRMSNorm, weight only), self_attn whose projections are
//   MoshiLinear (`q_proj.linear` ...: one nn.Linear without bias outside the depth decoder), RoPE, a causal
//   sliding_window; MoshiGatingMLP fc1 [ffn_dim, hidden] -> act(first half) x second half -> fc2 [hidden, ffn_dim / 2].
// - norm, and for MoshiForCausalLM a bias-free lm_head of vocab_size rows (the pad row has no logit).
// MoshiForConditionalGeneration (depth decoder, Mimi audio encoder) is not built: the shared ground truth has
// no case of it.
#include "families/moshi.hpp"

#include <fmt/format.h>

#include "blocks/blocks.hpp"
#include "core/error.hpp"

namespace neurarch::families {

namespace moshi {

using namespace blocks;

Dims read(const Config& c, const Dims& defaults) {
  Dims d;
  d.vocab = c.dim({"vocab_size"}, defaults.vocab);
  d.hidden = c.dim({"hidden_size"}, defaults.hidden);
  d.layers = c.dim({"num_hidden_layers"}, defaults.layers);
  d.heads = c.dim({"num_attention_heads"}, defaults.heads);
  d.kv_heads = c.raw({"num_key_value_heads"}) ? c.dim({"num_key_value_heads"}, d.heads) : d.heads;
  d.head_dim = c.raw({"head_dim"}) ? c.dim({"head_dim"}, d.hidden / d.heads) : d.hidden / d.heads;
  d.ffn = c.dim({"ffn_dim"}, defaults.ffn);
  d.positions = c.dim({"max_position_embeddings"}, defaults.positions);
  d.window = c.raw({"sliding_window"}) ? c.dim({"sliding_window"}, defaults.window) : 0;
  d.activation = c.text({"hidden_act"}, defaults.activation);
  d.attention_dropout = c.number({"attention_dropout"}, 0.0);
  if (d.ffn % 2 != 0)
    throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'ffn_dim'",
                fmt::format("{} is odd: MoshiGatingMLP splits it into two halves", d.ffn));
  return d;
}

Value decoder(GraphBuilder& b, Value x, const Dims& d, const Scope& root) {
  for (std::int64_t i = 0; i < d.layers; ++i) {
    b.set_block(b.next_block());
    const Scope l = root / "layers" / i;
    const Scope attn = l / "self_attn";
    PreNormLayer layer;
    layer.norm1 = {l / "input_layernorm", NormKind::RMSNorm, false};
    layer.attention = {.hidden = d.hidden, .heads = d.heads, .kv_heads = d.kv_heads, .head_dim = d.head_dim,
                       .causal = true, .window = d.window, .module = attn, .q = attn / "q_proj" / "linear",
                       .k = attn / "k_proj" / "linear", .v = attn / "v_proj" / "linear",
                       .o = attn / "o_proj" / "linear", .qkv_bias = false, .o_bias = false,
                       .require_divisible = false, .dropout = d.attention_dropout, .rotary = true};
    layer.norm2 = {l / "post_attention_layernorm", NormKind::RMSNorm, false};
    layer.ffn = {.hidden = d.hidden, .intermediate = d.ffn / 2, .activation = d.activation, .gated = true,
                 .module = l / "mlp", .down = l / "mlp" / "fc2", .gate_up = l / "mlp" / "fc1", .bias = false,
                 .down_bias = false};
    x = pre_norm_layer(b, x, i, layer);
  }
  b.set_block(-1);
  return norm(b, x, "Final_RMSNorm", {root / "norm", NormKind::RMSNorm, false});
}

Value causal_lm_head(GraphBuilder& b, const Value& x, const Dims& d, bool head) {
  if (!head) return x;
  return lm_head(b, x, "LM_Head", {.module = Scope("lm_head"), .hidden = d.hidden, .vocab = d.vocab});
}

}  // namespace moshi

namespace moshi_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const moshi::Dims d = moshi::read(in.config, {});
  const bool head = in.head == Head::CausalLM;
  const Scope root = head ? Scope("model") : Scope();
  auto ids = b.input({in.sequence_length(d.positions)}, "tokens");
  auto x = token_embedding(b, ids, "Token_Embedding", root / "embed_tokens", d.vocab + 1, d.hidden);
  x = moshi::decoder(b, x, d, root);
  return moshi::causal_lm_head(b, x, d, head);
}

}  // namespace
}  // namespace moshi_impl

const Family& moshi_family() {
  static const Family family{"moshi", "models/moshi/modeling_moshi.py", classes("Moshi", {heads::ForCausalLM}),
                             moshi_impl::build};
  return family;
}

}  // namespace neurarch::families
