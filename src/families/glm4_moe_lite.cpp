// GLM-4.7-Flash (models/glm4_moe_lite/modular_glm4_moe_lite.py + configuration_glm4_moe_lite.py, transformers
// 5.24.0): GLM-4.5's decoder layer and DeepSeek-V3-style feed-forward (glm4_moe.hpp) whose attention is
// DeepSeek-V3's multi-head latent attention (deepseek_common.hpp). Which layers are mixtures comes from
// mlp_layer_types ("dense" / "sparse", default: the first dense, the rest sparse); the reference does not read
// first_k_dense_replace, which the published config still carries. The checkpoint's multi-token-prediction
// layer (model.layers.47, ignored on load) is not part of these classes.
#include "families/deepseek_common.hpp"
#include "families/glm4_moe.hpp"
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace glm4_moe_lite_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  const deepseek::Defaults d{.llama = {.vocab = 154880, .hidden = 2048, .intermediate = 10240, .layers = 47,
                                       .heads = 20, .kv_heads = 20, .positions = 202752, .activation = "silu",
                                       .tie_word_embeddings = false},
                             .q_lora_rank = 768,
                             .kv_lora_rank = 512,
                             .qk_nope_head_dim = 192,
                             .qk_rope_head_dim = 64,
                             .v_head_dim = 256};
  decoder::DecoderSpec s = decoder::read_llama_config(c, d.llama);

  s.attention_override = deepseek::latent_attention_in_layers(c, s, d);
  s.mlp_override = glm4_moe::v3_feed_forward(
      c, s, {.n_routed_experts = 64, .moe_intermediate_size = 1536, .n_shared_experts = 1, .num_experts_per_tok = 4},
      moe::sparse_layers_by_type(c, s.layers, [] { return std::int64_t{1}; }));
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace glm4_moe_lite_impl

const Family& glm4_moe_lite_family() {
  static const Family family{"glm4_moe_lite", "models/glm4_moe_lite/modeling_glm4_moe_lite.py",
                             classes("Glm4MoeLite", {heads::ForCausalLM}), glm4_moe_lite_impl::build};
  return family;
}

}  // namespace neurarch::families
