#include "families/deepseek_common.hpp"

namespace neurarch::families::deepseek {

blocks::LatentAttentionSpec latent_attention(const Config& c, std::int64_t hidden, std::int64_t heads,
                                             const Defaults& d) {
  // q_lora_rank null means a plain q_proj; the other ranks must be numbers.
  return {.hidden = hidden,
          .heads = heads,
          .q_lora_rank = decoder::window_or_none(c, "q_lora_rank", d.q_lora_rank),
          .kv_lora_rank = c.dim({"kv_lora_rank"}, d.kv_lora_rank),
          .qk_nope_head_dim = c.integer({"qk_nope_head_dim"}, d.qk_nope_head_dim),
          .qk_rope_head_dim = c.integer({"qk_rope_head_dim"}, d.qk_rope_head_dim),
          .v_head_dim = c.dim({"v_head_dim"}, d.v_head_dim),
          .bias = c.flag({"attention_bias"}, false),
          .dropout = c.number({"attention_dropout"}, 0.0)};
}

decltype(decoder::DecoderSpec::attention_override) latent_attention_in_layers(const Config& c,
                                                                              const decoder::DecoderSpec& s,
                                                                              const Defaults& d) {
  const blocks::LatentAttentionSpec attention = latent_attention(c, s.hidden, s.heads, d);
  return [attention](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i, const graph::Scope& layer) {
    blocks::LatentAttentionSpec a = attention;
    a.module = layer / "self_attn";
    return blocks::latent_attention(gb, x, blocks::BlockNames{i}.attention(), a);
  };
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b, const Defaults& d) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(c, d.llama);
  const bool mlp_bias = d.reads_mlp_bias && c.flag({"mlp_bias"}, false);
  s.attention_override = latent_attention_in_layers(c, s, d);

  const std::int64_t experts = c.dim({"n_routed_experts"}, d.n_routed_experts);
  const std::int64_t expert_width = c.dim({"moe_intermediate_size"}, d.moe_intermediate_size);
  // V2 drops the shared experts when n_shared_experts is null; V3 always has them.
  const std::int64_t shared = d.reads_mlp_bias ? decoder::window_or_none(c, "n_shared_experts", d.n_shared_experts)
                                               : c.dim({"n_shared_experts"}, d.n_shared_experts);
  const std::int64_t top_k = decoder::window_or_none(c, "num_experts_per_tok", d.num_experts_per_tok);
  const std::int64_t first_dense = c.integer({"first_k_dense_replace"}, d.first_k_dense_replace);
  std::vector<bool> sparse(static_cast<std::size_t>(s.layers));
  for (std::int64_t i = 0; i < s.layers; ++i) sparse[static_cast<std::size_t>(i)] = i >= first_dense;

  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = expert_width, .experts = experts, .top_k = top_k,
                             .activation = s.activation, .expert_bias = mlp_bias,
                             .shared_intermediate = expert_width * shared};
  const bool correction = d.score_correction_bias;
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  s.mlp_override = moe::layer_hook(
      std::move(sparse),
      moe::experts_under(base, "mlp", shared > 0 ? "shared_experts" : ""),
      [hidden, intermediate, activation, mlp_bias](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                                   const graph::Scope& layer) {
        return moe::dense_mlp(gb, x, i, layer / "mlp", hidden, intermediate, activation, mlp_bias);
      });
  if (correction) {
    auto inner = s.mlp_override;
    s.mlp_override = [inner, experts](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                      const graph::Scope& layer) {
      auto out = inner(gb, x, i, layer);
      // Added to the router's sigmoid scores when picking experts (aux-loss-free balancing).
      if (gb.at(out).moe) gb.buffer(out, (layer / "mlp" / "gate")("e_score_correction_bias"), {experts}, DType::F32);
      return out;
    };
  }
  return decoder::build_decoder(in, b, s);
}

}  // namespace neurarch::families::deepseek
