// Hunyuan V3 (models/hy_v3/modular_hy_v3.py + configuration_hy_v3.py, transformers 5.24.0): Llama's layer with
// Apertus's attention (per-head q/k RMSNorms, q/k/v/o biases by attention_bias) and gated MLPs biased by mlp_bias.
// Layers that mlp_layer_types calls "sparse" (default: all but the first) route through an fp32 router to
// num_experts bias-free experts of moe_intermediate_size, add an MLP of moe_intermediate_size x num_shared_experts
// and keep an fp32 e_score_correction_bias [experts]. The checkpoint names what 5.24 renames on load:
// `mlp.router.gate` (gate), `mlp.expert_bias` (e_score_correction_bias), `mlp.shared_mlp` (shared_experts); the
// experts are one module each.
#include <fmt/format.h>

#include "families/moe_common.hpp"

namespace neurarch::families {
namespace hy_v3_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 120832, .hidden = 4096, .intermediate = 13312, .layers = 80, .heads = 64, .kv_heads = 8,
          .head_dim = 128, .positions = 131072, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.qk_norm = decoder::QkNorm::PerHead;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  const bool mlp_bias = c.flag({"mlp_bias"}, false);
  s.mlp_bias = mlp_bias;
  s.down_bias = mlp_bias;

  const std::int64_t experts = c.dim({"num_experts"}, 192);
  const std::int64_t expert_width = c.dim({"moe_intermediate_size"}, 1536);
  const std::int64_t shared = expert_width * c.integer({"num_shared_experts"}, 1);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = expert_width, .experts = experts,
                             .top_k = c.integer({"num_experts_per_tok"}, 8), .activation = s.activation};
  const auto hidden = s.hidden, intermediate = s.intermediate;
  const auto activation = s.activation;
  auto hook = moe::layer_hook(
      moe::sparse_layers_by_type(c, s.layers, [] { return std::int64_t{1}; }),
      [base](std::int64_t, const graph::Scope& layer) {
        blocks::MoESpec m = base;
        m.module = layer / "mlp";
        m.router = m.module / "router" / "gate";
        m.experts_module = m.module / "experts";
        return m;
      },
      [hidden, intermediate, activation, mlp_bias](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                                   const graph::Scope& layer) {
        return moe::dense_mlp(gb, x, i, layer / "mlp", hidden, intermediate, activation, mlp_bias);
      });
  s.mlp_override = [hook, experts, shared, hidden, activation, mlp_bias](
                       graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i, const graph::Scope& layer) {
    auto out = hook(gb, x, i, layer);
    if (!gb.at(out).moe) return out;
    // Added to the router's scores when picking experts (aux-loss-free balancing).
    gb.buffer(out, (layer / "mlp")("expert_bias"), {experts}, DType::F32);
    // The shared MLP honours mlp_bias, the routed experts never do: its own node beside the experts.
    const graph::Scope m = layer / "mlp" / "shared_mlp";
    blocks::FeedForwardSpec f{.hidden = hidden, .intermediate = shared, .activation = activation, .gated = true,
                              .module = m, .up = m / "up_proj", .down = m / "down_proj", .gate = m / "gate_proj",
                              .bias = mlp_bias, .down_bias = mlp_bias};
    auto dense = blocks::feed_forward(gb, x, fmt::format("FFN_{}_shared", i), f);
    return blocks::add(gb, out, dense, fmt::format("Add_{}_shared", i));
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace hy_v3_impl

const Family& hy_v3_family() {
  static const Family family{"hy_v3", "models/hy_v3/modeling_hy_v3.py", classes("HYV3", {heads::ForCausalLM}),
                             hy_v3_impl::build};
  return family;
}

}  // namespace neurarch::families
