// MiniMax-M2 (models/minimax_m2/modular_minimax_m2.py + configuration_minimax_m2.py, transformers 5.24.0; its
// defaults are MiniMax-M2's architecture): Mixtral's stack (mixtral.cpp: router `gate`, experts.<i>.{w1, w3, w2}
// under block_sparse_moe) with FlexOlmo's attention, whose q_norm / k_norm normalise all heads at once
// ([heads x head_dim], [kv_heads x head_dim]), no biases and no sliding window; the sparse block adds a persistent
// e_score_correction_bias [num_local_experts] to the router's scores when picking experts. transformers 5 fuses the
// experts in memory and save_pretrained writes Mixtral's per-expert names back (the mixtral conversion mapping).
#include "families/mixtral.hpp"

namespace neurarch::families {
namespace minimax_m2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  decoder::DecoderSpec s = mixtral::spec(
      in.config, {.llama = {.vocab = 200064, .hidden = 3072, .intermediate = 1536, .layers = 62, .heads = 48,
                            .kv_heads = 8, .head_dim = 128, .positions = 196608, .activation = "silu",
                            .tie_word_embeddings = false},
                  .num_local_experts = 256, .num_experts_per_tok = 8});
  s.window = 0;  // FlexOlmo's attention has no sliding window
  s.qk_norm = decoder::QkNorm::Full;
  s.attention_dropout = in.config.number({"attention_dropout"}, 0.0);
  const std::int64_t experts = in.config.integer({"num_local_experts"}, 256);
  s.mlp_override = [mixture = s.mlp_override, experts](graph::GraphBuilder& gb, const graph::Value& x,
                                                         std::int64_t i, const graph::Scope& layer) {
    auto out = mixture(gb, x, i, layer);
    // A plain buffer (zeros, persistent), created in the model's dtype.
    gb.buffer(out, (layer / "block_sparse_moe")("e_score_correction_bias"), {experts}, gb.param_dtype());
    return out;
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace minimax_m2_impl

const Family& minimax_m2_family() {
  static const Family family{"minimax_m2", "models/minimax_m2/modeling_minimax_m2.py",
                             classes("MiniMaxM2", {heads::ForCausalLM}), minimax_m2_impl::build};
  return family;
}

}  // namespace neurarch::families
