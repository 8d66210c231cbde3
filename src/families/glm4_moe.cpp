// GLM-4.5 / GLM-4.6 (models/glm4_moe/modeling_glm4_moe.py + configuration_glm4_moe.py, transformers
// 4.57.6): Llama's residual stack with GQA (attention_bias on q/k/v only, head_dim key else hidden /
// heads, RoPE on partial_rotary_factor of each head, optional per-head q/k RMSNorms under
// use_qk_norm). The first first_k_dense_replace layers keep a dense MLP of intermediate_size; the rest
// are DeepSeek-V3-style mixtures: router `mlp.gate` [n_routed_experts, hidden] with an fp32
// e_score_correction_bias buffer, experts.<i> of moe_intermediate_size and one shared_experts MLP of
// moe_intermediate_size x n_shared_experts. The checkpoints' multi-token-prediction layers
// (num_nextn_predict_layers) are not part of these classes.
#include "families/glm4_moe.hpp"

#include "families/moe_common.hpp"

namespace neurarch::families {
namespace glm4_moe_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(
      in, b,
      glm4_moe::spec(in.config,
                     {.vocab = 151552, .hidden = 4096, .intermediate = 10944, .layers = 46, .heads = 96, .kv_heads = 8,
                      .positions = 131072, .activation = "silu", .tie_word_embeddings = false},
                     false));
}

}  // namespace
}  // namespace glm4_moe_impl
using namespace glm4_moe_impl;

namespace glm4_moe {

decoder::DecoderSpec spec(const Config& c, const decoder::LlamaDefaults& defaults, bool attention_bias,
                          const MoeDefaults& moe) {
  decoder::DecoderSpec s = decoder::read_llama_config(c, defaults);
  s.qkv_bias = c.flag({"attention_bias"}, attention_bias);
  s.o_bias = false;
  if (c.flag({"use_qk_norm"}, false)) s.qk_norm = decoder::QkNorm::PerHead;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.mlp_override = v3_feed_forward(c, s, moe);
  return s;
}

decltype(decoder::DecoderSpec::mlp_override) v3_feed_forward(const Config& c, const decoder::DecoderSpec& s,
                                                             const MoeDefaults& d) {
  const std::int64_t first_dense = d.dense_layers ? c.integer({"first_k_dense_replace"}, d.first_k_dense_replace) : 0;
  std::vector<bool> sparse(static_cast<std::size_t>(s.layers));
  for (std::int64_t i = 0; i < s.layers; ++i) sparse[static_cast<std::size_t>(i)] = i >= first_dense;
  return v3_feed_forward(c, s, d, std::move(sparse));
}

decltype(decoder::DecoderSpec::mlp_override) v3_feed_forward(const Config& c, const decoder::DecoderSpec& s,
                                                             const MoeDefaults& d, std::vector<bool> sparse) {
  const std::int64_t experts = c.dim({"n_routed_experts"}, d.n_routed_experts);
  const std::int64_t expert_width = c.dim({"moe_intermediate_size"}, d.moe_intermediate_size);
  const std::int64_t shared = c.integer({"n_shared_experts"}, d.n_shared_experts);

  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = expert_width, .experts = experts,
                             .top_k = c.integer({"num_experts_per_tok"}, d.num_experts_per_tok),
                             .activation = s.activation, .shared_intermediate = expert_width * shared};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  auto routed = moe::experts_under(base, "mlp", shared > 0 ? "shared_experts" : "");
  if (d.fused_experts)
    routed = [make = std::move(routed)](std::int64_t i, const graph::Scope& layer) {
      blocks::MoESpec spec = make(i, layer);
      spec.bare_experts = spec.experts_module;
      spec.bare_out_in = true;
      return spec;
    };
  auto hook = moe::layer_hook(std::move(sparse), std::move(routed), moe::dense_under(hidden, intermediate, activation));
  return [hook, experts](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i, const graph::Scope& layer) {
    auto out = hook(gb, x, i, layer);
    // Added to the router's sigmoid scores when picking experts (aux-loss-free balancing).
    if (gb.at(out).moe) gb.buffer(out, (layer / "mlp" / "gate")("e_score_correction_bias"), {experts}, DType::F32);
    return out;
  };
}

}  // namespace glm4_moe

const Family& glm4_moe_family() {
  static const Family family{"glm4_moe", "models/glm4_moe/modeling_glm4_moe.py",
                             classes("Glm4Moe", {heads::ForCausalLM}), glm4_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
