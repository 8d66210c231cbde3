// Flint (models/flint/modular_flint.py + configuration_flint.py, transformers 5.24.0): Qwen3-MoE's layer (per-head
// q/k RMSNorms, q/k/v/o biases by attention_bias) with GPT-OSS-style attention sinks, saved as
// `self_attn.softmax_offset` [heads] (5.24 loads them as `sinks`; its attention has no SDPA path), sliding windows by
// layer_types (default: full on the first two layers, every fourth from layer 1 and the last), and Qwen-MoE's
// sparse layers (mlp_only_layers, default [0, 1], stay dense) whose experts sit beside one always-on
// `shared_expert` MLP of shared_expert_intermediate_size (no sigmoid gate on it, unlike Qwen2-MoE's). The router
// weight is fp32; the experts are saved one module each.
#include <nlohmann/json.hpp>

#include "families/moe_common.hpp"

namespace neurarch::families {
namespace flint_impl {
namespace {

std::vector<std::int64_t> attention_windows(const Config& c, std::int64_t layers) {
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 513);
  if (c.raw({"layer_types"})) return decoder::windows_from_layer_types(c, layers, window);
  std::vector<std::int64_t> out(static_cast<std::size_t>(layers), window);
  for (std::int64_t i = 0; i < layers; ++i)
    if (i < 2 || i % 4 == 1 || i == layers - 1) out[static_cast<std::size_t>(i)] = 0;
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 150144, .hidden = 2048, .intermediate = 6144, .layers = 49, .heads = 32, .kv_heads = 4,
          .head_dim = 128, .positions = 262144, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.qk_norm = decoder::QkNorm::PerHead;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.head_scalars = {"softmax_offset"};
  s.eager_only = true;
  s.windows = attention_windows(c, s.layers);

  const std::int64_t experts = c.integer({"num_experts"}, 256);
  std::vector<bool> sparse = moe::sparse_layers_by_step(c, s.layers, experts);
  if (const auto* only = c.raw({"mlp_only_layers"}); !only || only->is_null())
    for (std::size_t i = 0; i < sparse.size() && i < 2; ++i) sparse[i] = false;
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = c.dim({"moe_intermediate_size"}, 512),
                             .experts = experts, .top_k = c.integer({"num_experts_per_tok"}, 6),
                             .activation = s.activation,
                             .shared_intermediate = c.dim({"shared_expert_intermediate_size"}, 1024)};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  s.mlp_override = moe::layer_hook(
      std::move(sparse), moe::experts_under(base, "mlp", "shared_expert"),
      moe::dense_under(hidden, intermediate, activation));
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace flint_impl

const Family& flint_family() {
  static const Family family{"flint", "models/flint/modeling_flint.py", classes("Flint", {heads::ForCausalLM}),
                             flint_impl::build};
  return family;
}

}  // namespace neurarch::families
