// GPT-OSS (models/gpt_oss/modeling_gpt_oss.py + configuration_gpt_oss.py, transformers 4.57.6): a
// Llama-shaped decoder whose attention has biases (attention_bias), an explicit head_dim, a learned
// per-head sink logit `sinks` [heads] appended to every softmax row, and sliding / full layers from
// layer_types (sliding on even layers when absent). The reference has no SDPA path, so training runs
// the eager kernel. Every MLP is a mixture of experts: a router with bias `mlp.router` and the
// experts as four bare parameters used as x @ W, gate_up_proj [experts, hidden, 2 x intermediate]
// (gate and up interleaved) and down_proj [experts, intermediate, hidden], each with a bias. The
// experts apply a clamped SwiGLU (alpha 1.702, limit 7) whatever hidden_act says. RoPE is YaRN.
#include <utility>

#include <nlohmann/json.hpp>

#include "families/moe_common.hpp"

namespace neurarch::families {
namespace gpt_oss_impl {
namespace {

std::vector<std::int64_t> gpt_oss_windows(const Config& c, std::int64_t layers, std::int64_t window) {
  if (c.raw({"layer_types"})) return decoder::windows_from_layer_types(c, layers, window);
  // The config's default: "sliding_attention" when (i + 1) is odd.
  std::vector<std::int64_t> out(static_cast<std::size_t>(layers), 0);
  for (std::int64_t i = 0; i < layers; i += 2) out[static_cast<std::size_t>(i)] = window;
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  // head_dim may be written as null, which the config turns into hidden / heads.
  const auto& j = c.json();
  const bool head_dim_null = j.contains("head_dim") && j["head_dim"].is_null();
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 201088, .hidden = 2880, .intermediate = 2880, .layers = 36, .heads = 64, .kv_heads = 8,
          .head_dim = head_dim_null ? 0 : 64, .positions = 131072, .activation = "silu",
          .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, true);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.head_scalars = {"sinks"};
  s.eager_only = true;
  s.windows = gpt_oss_windows(c, s.layers, decoder::window_or_none(c, "sliding_window", 128));
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate,
                             .experts = c.integer({"num_local_experts", "num_experts"}, 128),
                             .top_k = c.integer({"num_experts_per_tok"}, 4), .activation = "clamped_swiglu",
                             .router_bias = true, .expert_bias = true};
  s.mlp_override = moe::layer_hook({}, [base](std::int64_t, const graph::Scope& layer) {
    blocks::MoESpec m = base;
    m.module = layer / "mlp";
    m.router = m.module / "router";
    m.bare_experts = m.module / "experts";
    return m;
  });
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace gpt_oss_impl

const Family& gpt_oss_family() {
  static const Family family{"gpt_oss", "models/gpt_oss/modeling_gpt_oss.py",
                             classes("GptOss", {heads::ForCausalLM, heads::ForSequenceClassification}), gpt_oss_impl::build};
  return family;
}

}  // namespace neurarch::families
