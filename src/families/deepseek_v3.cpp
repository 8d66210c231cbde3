// DeepSeek-V3 (models/deepseek_v3/modeling_deepseek_v3.py + configuration_deepseek_v3.py,
// transformers 4.57.6): DeepSeek-V2's latent attention and layer plan (dense MLP before
// first_k_dense_replace, routed + shared experts after) with a sigmoid router whose module keeps
// an e_score_correction_bias [n_routed_experts] fp32 buffer, always-present shared experts and
// bias-free MLPs. Group-limited routing (n_group, topk_group) adds no tensors.
#include "families/deepseek_common.hpp"

namespace neurarch::families {
namespace deepseek_v3_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return deepseek::build(in, b,
                         {.llama = {.vocab = 129280, .hidden = 7168, .intermediate = 18432, .layers = 61, .heads = 128,
                                    .positions = 4096, .activation = "silu", .tie_word_embeddings = false},
                          .first_k_dense_replace = 3,
                          .n_routed_experts = 256,
                          .n_shared_experts = 1,
                          .num_experts_per_tok = 8,
                          .moe_intermediate_size = 2048,
                          .reads_mlp_bias = false,
                          .score_correction_bias = true});
}

}  // namespace
}  // namespace deepseek_v3_impl

const Family& deepseek_v3_family() {
  static const Family family{"deepseek_v3", "models/deepseek_v3/modeling_deepseek_v3.py",
                             classes("DeepseekV3", {heads::ForCausalLM, heads::ForSequenceClassification}), deepseek_v3_impl::build};
  return family;
}

}  // namespace neurarch::families
