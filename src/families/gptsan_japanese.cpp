// GPTSAN-japanese (models/deprecated/gptsan_japanese/modeling_gptsan_japanese.py + configuration_gptsan_japanese.py,
// transformers 4.47.1; removed in 5.x): a prefix-LM of Switch Transformer blocks. num_switch_layers blocks, then
// num_ext_layers dense "extension" blocks; each block normalises its sublayers' outputs, not their inputs
// (x + norm(attn(x)), x + norm(ff(x))). The attention (self_attn.self_attn.{q,k,v,out}_proj, no bias) is eager only.
// A switch block's feed-forward is a top-1 router over num_experts ReLU experts (experts.expert_<i>.{wi,wo}, no
// bias, d_ff wide) plus tanh(soft_bypass_mlp(x)); an extension block's is one swish MLP of d_ext with biases, and
// extra_position_embeddings is added before the first of them. After the blocks, last_project + swish. The spout
// (d_spout: eight Linear + tanh pairs and a projection to num_layers x 2 x d_model, the key/value prefix forward
// builds only when a `spout` vector is passed) is stored; its weights sit on the token embedding, which claims no
// compute for them. ForConditionalGeneration adds final_logits_bias and lm_head, tied to embed_tokens. Expert
// capacity (tokens past expert_capacity skip their expert) is not modelled: every token is routed.
#include <fmt/format.h>

#include "blocks/moe.hpp"
#include "families/family.hpp"

namespace neurarch::families {
namespace gptsan_japanese_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  const std::int64_t vocab = c.dim({"vocab_size"}, 36000);
  const std::int64_t positions = c.dim({"max_position_embeddings"}, 1280);
  const std::int64_t hidden = c.dim({"d_model"}, 1024);
  const std::int64_t d_ff = c.dim({"d_ff"}, 8192);
  const std::int64_t d_ext = c.dim({"d_ext"}, 4096);
  const std::int64_t d_spout = c.integer({"d_spout"}, 128);
  const std::int64_t switch_layers = c.integer({"num_switch_layers"}, 10);
  const std::int64_t ext_layers = c.integer({"num_ext_layers"}, 0);
  const std::int64_t heads = c.dim({"num_heads"}, 16);
  const std::int64_t experts = c.dim({"num_experts"}, 16);
  const double dropout = c.number({"dropout_rate"}, 0.0);
  const bool router_bias = c.flag({"router_bias"}, false);
  const bool tie = c.flag({"tie_word_embeddings"}, true);
  // The config class computes num_layers from the two counts, whatever the file says.
  const std::int64_t layers = switch_layers + ext_layers;

  const Scope root = in.head == Head::Base ? Scope() : Scope("model");
  auto x = b.input({in.sequence_length(positions)}, "tokens");
  x = token_embedding(b, x, "Token_Embedding", root / "embed_tokens", vocab, hidden);
  if (d_spout > 0) {
    // Idle: no gradient, no optimizer state.
    for (std::int64_t i = 0; i < 8; ++i)
      b.parameter(x, (root / "spout" / (2 * i))("weight"), {d_spout, d_spout}, graph::TensorRole::Linear,
                  graph::Operand::Idle);
    b.parameter(x, (root / "spout" / 16)("weight"), {layers * 2 * hidden, d_spout}, graph::TensorRole::Linear,
                graph::Operand::Idle);
  }
  x = learned_positions(b, x, "Position_Embedding", root / "position_embeddings", positions, hidden);

  for (std::int64_t i = 0; i < layers; ++i) {
    b.set_block(static_cast<int>(i));
    const Scope l = root / "blocks" / i;
    const BlockNames n{i};
    if (i == switch_layers)
      x = added_embedding(b, x, "Extra_Position_Embedding", root / "extra_position_embeddings", positions, hidden);
    const Scope attn = l / "self_attn" / "self_attn";
    auto h = attention(b, x, n.attention(),
                       {.hidden = hidden, .heads = heads, .causal = true, .module = attn, .q = attn / "q_proj",
                        .k = attn / "k_proj", .v = attn / "v_proj", .o = attn / "out_proj", .qkv_bias = false,
                        .o_bias = false, .dropout = dropout});
    b.at(h).attention->sdpa = false;
    h = norm(b, h, n.norm(1, NormKind::LayerNorm), {l / "self_attn" / "norm"});
    x = add(b, h, x, n.add(1));
    const Scope ff = l / "feed_forward";
    if (i < switch_layers) {
      const Scope mlp = ff / "mlp";
      h = mixture_of_experts(b, x, fmt::format("MoE_{}", i),
                             {.hidden = hidden, .intermediate = d_ff, .experts = experts, .top_k = 1,
                              .activation = "relu", .gated = false, .module = mlp, .router = mlp / "router" / "classifier",
                              .router_bias = router_bias, .experts_module = mlp / "experts", .expert_prefix = "expert_",
                              .up = "wi", .down = "wo"});
      auto bypass = dense(b, x, fmt::format("Soft_Bypass_{}", i), ff / "soft_bypass_mlp", hidden, hidden, false, "tanh");
      h = add(b, h, bypass, fmt::format("Add_{}_Bypass", i));
    } else {
      h = feed_forward(b, x, n.ffn(),
                       {.hidden = hidden, .intermediate = d_ext, .activation = "swish", .module = ff / "mlp",
                        .up = ff / "mlp" / "wi", .down = ff / "mlp" / "wo"});
    }
    h = norm(b, h, n.norm(2, NormKind::LayerNorm), {ff / "norm"});
    x = add(b, h, x, n.add(2));
  }
  b.set_block(-1);
  x = dense(b, x, "Last_Project", root / "last_project", hidden, hidden, true, "swish");
  if (in.head != Head::Seq2SeqLM) return x;
  LmHeadSpec head{.module = Scope("lm_head"), .hidden = hidden, .vocab = vocab};
  if (tie) head.tied_weight = (root / "embed_tokens")("weight");
  x = lm_head(b, x, "LM_Head", head);
  b.buffer(x, "final_logits_bias", {1, vocab}, b.param_dtype());
  return x;
}

}  // namespace
}  // namespace gptsan_japanese_impl

const Family& gptsan_japanese_family() {
  static const Family family{"gptsan-japanese", "models/deprecated/gptsan_japanese/modeling_gptsan_japanese.py",
                             classes("GPTSanJapanese", {heads::ForConditionalGeneration}), gptsan_japanese_impl::build};
  return family;
}

}  // namespace neurarch::families
