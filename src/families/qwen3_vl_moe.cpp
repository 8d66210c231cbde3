// Qwen3-VL-MoE (models/qwen3_vl_moe/modeling_qwen3_vl_moe.py + configuration_qwen3_vl_moe.py, transformers
// 5.24.0): Qwen3-VL (qwen3_vl_common) whose text model swaps the dense MLP for Qwen3-MoE's sparse one on the layers
// decoder_sparse_step and mlp_only_layers choose: a router `gate` [num_experts, hidden] (no bias) and the experts
// fused as transformers 5 stores them, experts.gate_up_proj [experts, 2 x moe_intermediate, hidden] and
// experts.down_proj [experts, hidden, moe_intermediate]. Qwen3VLMoeTextConfig's defaults (hidden / heads = 128
// head_dim, 16 KV heads, 60 experts of 1408, top 4).
#include "families/clip_common.hpp"
#include "families/moe_common.hpp"
#include "families/qwen3_vl_common.hpp"

namespace neurarch::families {
namespace {

blocks::Value build(const BuildInput& in, blocks::GraphBuilder& b) {
  const Config text = in.config.child("text_config");
  decoder::DecoderSpec s = qwen3_vl::text_spec(text);
  // Qwen3VLMoeTextConfig's own defaults where they differ from the dense text config's.
  const decoder::DecoderSpec d = decoder::read_llama_config(
      text, {.vocab = 151936, .hidden = 2048, .intermediate = 5632, .layers = 24, .heads = 16, .kv_heads = 16,
             .positions = 128000, .activation = "silu", .tie_word_embeddings = true});
  s.vocab = d.vocab, s.hidden = d.hidden, s.intermediate = d.intermediate, s.layers = d.layers, s.heads = d.heads;
  s.kv_heads = d.kv_heads, s.head_dim = d.head_dim, s.positions = d.positions;
  s.windows.clear();
  const std::int64_t experts = text.integer({"num_experts"}, 60);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = text.dim({"moe_intermediate_size"}, 1408),
                             .experts = experts, .top_k = text.integer({"num_experts_per_tok"}, 4),
                             .activation = s.activation};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  const auto fused = [make = moe::experts_under(base)](std::int64_t i, const graph::Scope& layer) {
    blocks::MoESpec spec = make(i, layer);
    spec.bare_experts = spec.experts_module;
    spec.bare_out_in = true;
    return spec;
  };
  s.mlp_override = moe::layer_hook(
      moe::sparse_layers_by_step(text, s.layers, experts), fused,
      moe::dense_under(hidden, intermediate, activation));
  return qwen3_vl::build(in, b, s, "Qwen3VLMoeTextModel");
}

}  // namespace

const Family& qwen3_vl_moe_family() {
  static const Family family{"qwen3_vl_moe", "models/qwen3_vl_moe/modeling_qwen3_vl_moe.py",
                             {{"Qwen3VLMoeModel", Head::Base},
                              {"Qwen3VLMoeForConditionalGeneration", Head::CausalLM}},
                             build};
  return family;
}

}  // namespace neurarch::families
