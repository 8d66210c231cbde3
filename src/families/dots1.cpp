// dots.llm1 (models/dots1/modular_dots1.py + configuration_dots1.py, transformers 5.24.0): Qwen3's attention
// (qwen3.cpp: per-head q_norm / k_norm, attention_bias on q/k/v/o, head_dim = hidden / heads unless set) under
// DeepSeek-V3's feed-forward (glm4_moe::v3_feed_forward: dense on the first first_k_dense_replace layers, then the
// router with its e_score_correction_bias, the experts and shared_experts). Dots1Config leaves n_routed_experts,
// n_shared_experts and num_experts_per_tok None, so its defaults build no mixture (neither does the reference). A
// layer slides (sliding_window) when layer_types says so, else from max_window_layers on.
#include <algorithm>

#include "families/glm4_moe.hpp"
#include "families/qwen3.hpp"

namespace neurarch::families {
namespace dots1_impl {
namespace {

std::vector<std::int64_t> windows(const Config& c, std::int64_t layers) {
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  if (c.raw({"layer_types"})) return decoder::windows_from_layer_types(c, layers, window);
  const std::int64_t first = c.integer({"max_window_layers"}, 62);
  std::vector<std::int64_t> out(static_cast<std::size_t>(std::max<std::int64_t>(layers, 0)), 0);
  for (std::int64_t i = std::max<std::int64_t>(first, 0); i < layers; ++i) out[static_cast<std::size_t>(i)] = window;
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = qwen3_spec(
      c, {.vocab = 152064, .hidden = 4608, .intermediate = 10944, .layers = 62, .heads = 32, .kv_heads = 32,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  s.windows = windows(c, s.layers);
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.mlp_override = glm4_moe::v3_feed_forward(
      c, s, {.n_routed_experts = 0, .moe_intermediate_size = 1408, .n_shared_experts = 0, .first_k_dense_replace = 0,
             .num_experts_per_tok = 0});
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace dots1_impl

const Family& dots1_family() {
  static const Family family{"dots1", "models/dots1/modeling_dots1.py", classes("Dots1", {heads::ForCausalLM}),
                             dots1_impl::build};
  return family;
}

}  // namespace neurarch::families
