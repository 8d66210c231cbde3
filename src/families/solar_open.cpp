// Solar Open (models/solar_open/modular_solar_open.py + configuration_solar_open.py, transformers 5.24.0;
// Solar-Open-100B, whose architecture the config's defaults are): GLM-4.5's stack (glm4_moe.cpp: q/k/v biases as
// attention_bias, o_proj without) with Llama's attention, so no q/k norms whatever use_qk_norm says, and GLM-4.5's
// DeepSeek-V3-style mixture on every layer: SolarOpenConfig drops intermediate_size, first_k_dense_replace and
// use_qk_norm, so no layer is dense.
#include "families/glm4_moe.hpp"

namespace neurarch::families {
namespace solar_open_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = glm4_moe::spec(
      c, {.vocab = 196608, .hidden = 4096, .intermediate = 0, .layers = 48, .heads = 64, .kv_heads = 8,
          .head_dim = 128, .positions = 131072, .activation = "silu", .tie_word_embeddings = false},
      false,
      {.n_routed_experts = 128, .moe_intermediate_size = 1280, .n_shared_experts = 1, .num_experts_per_tok = 8,
       .dense_layers = false});
  s.qk_norm = decoder::QkNorm::None;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace solar_open_impl

const Family& solar_open_family() {
  static const Family family{"solar_open", "models/solar_open/modeling_solar_open.py",
                             classes("SolarOpen", {heads::ForCausalLM}), solar_open_impl::build};
  return family;
}

}  // namespace neurarch::families
