// Mistral 4 (models/mistral4/modular_mistral4.py + configuration_mistral4.py, transformers 5.24.0): DeepSeek-V3's
// layer (deepseek_common.hpp's latent attention; a dense MLP before first_k_dense_replace, routed experts plus
// n_shared_experts shared ones after) with a softmax router `mlp.gate` that keeps no e_score_correction_bias.
// Llama 4's query scaling adds no tensors. No conversion mapping reverts 5.x's fused experts, so the checkpoint
// holds them as `mlp.experts.gate_up_proj` [experts, 2 x moe_intermediate_size, hidden] and `down_proj`.
#include "families/deepseek_common.hpp"

namespace neurarch::families {
namespace mistral4_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  const deepseek::Defaults d{.llama = {.vocab = 131072, .hidden = 4096, .intermediate = 12288, .layers = 36,
                                       .heads = 32, .kv_heads = 32, .positions = 1048576, .activation = "silu",
                                       .tie_word_embeddings = false},
                             .q_lora_rank = 1024,
                             .kv_lora_rank = 256,
                             .qk_nope_head_dim = 64,
                             .qk_rope_head_dim = 64,
                             .v_head_dim = 128};
  decoder::DecoderSpec s = decoder::read_llama_config(c, d.llama);
  s.attention_override = deepseek::latent_attention_in_layers(c, s, d);

  const std::int64_t expert_width = c.dim({"moe_intermediate_size"}, 2048);
  const std::int64_t shared = c.integer({"n_shared_experts"}, 1);
  const std::int64_t first_dense = c.integer({"first_k_dense_replace"}, 0);
  std::vector<bool> sparse(static_cast<std::size_t>(s.layers));
  for (std::int64_t i = 0; i < s.layers; ++i) sparse[static_cast<std::size_t>(i)] = i >= first_dense;
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = expert_width,
                             .experts = c.dim({"n_routed_experts"}, 128),
                             .top_k = c.integer({"num_experts_per_tok"}, 4), .activation = s.activation,
                             .bare_out_in = true, .shared_intermediate = expert_width * shared};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  s.mlp_override = moe::layer_hook(
      std::move(sparse),
      [base](std::int64_t, const graph::Scope& layer) {
        blocks::MoESpec m = base;
        m.module = layer / "mlp";
        m.router = m.module / "gate";
        m.bare_experts = m.module / "experts";
        m.shared = m.module / "shared_experts";
        return m;
      },
      moe::dense_under(hidden, intermediate, activation));
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace mistral4_impl

const Family& mistral4_family() {
  static const Family family{
      "mistral4", "models/mistral4/modeling_mistral4.py",
      classes("Mistral4", {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
      mistral4_impl::build};
  return family;
}

}  // namespace neurarch::families
