// DeepSeek-V2 (models/deepseek_v2/modeling_deepseek_v2.py + configuration_deepseek_v2.py,
// transformers 4.57.6): multi-head latent attention (q_a_proj -> q_a_layernorm -> q_b_proj, or
// q_proj when q_lora_rank is null; kv_a_proj_with_mqa -> kv_a_layernorm -> kv_b_proj; o_proj;
// attention_bias on q_a, kv_a and o), a dense MLP before first_k_dense_replace, then a router
// `gate`, n_routed_experts experts of moe_intermediate_size and shared_experts of
// n_shared_experts x moe_intermediate_size (none when null). mlp_bias covers every MLP. The
// default num_experts_per_tok is null: such a model builds but its router cannot run.
#include "families/deepseek_common.hpp"

namespace neurarch::families {
namespace deepseek_v2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return deepseek::build(in, b,
                         {.llama = {.vocab = 32000, .hidden = 4096, .intermediate = 11008, .layers = 32, .heads = 32,
                                    .positions = 2048, .activation = "silu", .tie_word_embeddings = false}});
}

}  // namespace
}  // namespace deepseek_v2_impl

const Family& deepseek_v2_family() {
  static const Family family{"deepseek_v2", "models/deepseek_v2/modeling_deepseek_v2.py",
                             classes("DeepseekV2", {heads::ForCausalLM, heads::ForSequenceClassification}), deepseek_v2_impl::build};
  return family;
}

}  // namespace neurarch::families
