// Qwen2-MoE (models/qwen2_moe/modeling_qwen2_moe.py + configuration_qwen2_moe.py, transformers
// 4.47.1): Qwen2's attention (bias on q/k/v only; head_dim = hidden / heads, a remainder refused)
// with a sparse MLP on the layers decoder_sparse_step and mlp_only_layers choose: router `gate`
// [num_experts, hidden], experts.<i> of moe_intermediate_size, plus a shared_expert of
// shared_expert_intermediate_size every token passes through, scaled by sigmoid(shared_expert_gate).
// Other layers keep a dense MLP of intermediate_size. Sliding windows follow Qwen2's rules.
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace qwen2_moe_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 151936, .hidden = 2048, .intermediate = 5632, .layers = 24, .heads = 16, .kv_heads = 16,
          .positions = 32768, .activation = "silu", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.qkv_bias = true;
  s.windows = decoder::qwen_windows(c, s.layers, 4096, 28);
  s.qa_prefix = "transformer";
  const std::int64_t experts = c.integer({"num_experts"}, 60);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = c.dim({"moe_intermediate_size"}, 1408),
                             .experts = experts, .top_k = c.integer({"num_experts_per_tok"}, 4),
                             .activation = s.activation,
                             .shared_intermediate = c.integer({"shared_expert_intermediate_size"}, 5632)};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  s.mlp_override = moe::layer_hook(
      moe::sparse_layers_by_step(c, s.layers, experts),
      [base](std::int64_t, const graph::Scope& layer) {
        blocks::MoESpec m = base;
        m.module = layer / "mlp";
        m.router = m.module / "gate";
        m.experts_module = m.module / "experts";
        m.shared = m.module / "shared_expert";
        m.shared_gate = m.module / "shared_expert_gate";
        return m;
      },
      moe::dense_under(hidden, intermediate, activation));
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace qwen2_moe_impl

const Family& qwen2_moe_family() {
  static const Family family{"qwen2_moe", "models/qwen2_moe/modeling_qwen2_moe.py",
                             classes("Qwen2Moe", {heads::ForCausalLM, heads::ForSequenceClassification}), qwen2_moe_impl::build};
  return family;
}

}  // namespace neurarch::families
