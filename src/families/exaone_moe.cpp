// K-EXAONE (models/exaone_moe/modular_exaone_moe.py + configuration_exaone_moe.py, transformers 5.24.0): EXAONE
// 4.0's attention (per-head q/k RMSNorms, sliding windows by layer_types or sliding_window_pattern; exaone4.hpp) in
// OLMoE's pre-norm layer (input_layernorm, post_attention_layernorm), with DeepSeek-V3's feed-forward: layers that
// mlp_layer_types calls "dense" (default: the first first_k_dense_replace) keep a gated MLP, the rest route through
// `mlp.gate` to num_experts experts beside num_shared_experts shared ones. The router's fp32
// e_score_correction_bias is saved as `mlp.e_score_correction_bias` (5.24 moves it under `gate` on load), and the
// experts one module each. The checkpoint's multi-token-prediction layers (mtp.*) are not part of these classes.
#include "families/exaone4.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace exaone_moe_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 102400, .hidden = 4096, .intermediate = 16384, .layers = 32, .heads = 32, .kv_heads = 32,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  s.qk_norm = decoder::QkNorm::PerHead;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.windows = exaone4::windows(c, s.layers, 4096);

  const std::int64_t experts = c.dim({"num_experts"}, 64);
  const std::int64_t expert_width = c.dim({"moe_intermediate_size"}, 1024);
  const std::int64_t shared = c.integer({"num_shared_experts"}, 1);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = expert_width, .experts = experts,
                             .top_k = c.integer({"num_experts_per_tok"}, 8), .activation = s.activation,
                             .shared_intermediate = expert_width * shared};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  auto hook = moe::layer_hook(
      moe::sparse_layers_by_type(c, s.layers, [&] { return c.integer({"first_k_dense_replace"}, 1); }), moe::experts_under(base, "mlp", "shared_experts"),
      moe::dense_under(hidden, intermediate, activation));
  s.mlp_override = [hook, experts](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                   const graph::Scope& layer) {
    auto out = hook(gb, x, i, layer);
    // Added to the router's sigmoid scores when picking experts (aux-loss-free balancing).
    if (gb.at(out).moe) gb.buffer(out, (layer / "mlp")("e_score_correction_bias"), {experts}, DType::F32);
    return out;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace exaone_moe_impl

const Family& exaone_moe_family() {
  static const Family family{"exaone_moe", "models/exaone_moe/modeling_exaone_moe.py",
                             classes("ExaoneMoe", {heads::ForCausalLM}), exaone_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
