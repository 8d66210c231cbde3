// GraniteMoE SWA (models/granitemoe_swa/modular_granitemoe_swa.py + configuration_granitemoe_swa.py, transformers
// 5.24.0): GraniteMoeShared's layer (granite.hpp: GraniteMoE's experts of intermediate_size, num_local_experts with
// num_experts_per_tok per token, and a gated `shared_mlp` when shared_intermediate_size > 0) with Granite SWA's
// attention (granite_swa.hpp: sinks, sliding windows, per-layer RoPE bases). No conversion mapping reverts 5.x's
// fused experts for this type, so the checkpoint holds `block_sparse_moe.experts.gate_up_proj` / `down_proj` and the
// router as `block_sparse_moe.router.weight` (GraniteMoE's files: input_linear, output_linear, router.layer).
#include <fmt/format.h>

#include "families/granite.hpp"
#include "families/granite_swa.hpp"

namespace neurarch::families {
namespace granitemoe_swa_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = granite::spec(c);
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  granite_swa::sliding_attention(s, c);

  blocks::MoESpec base = granitemoe::experts(c, s);
  base.bare_out_in = true;
  const std::int64_t shared = c.integer({"shared_intermediate_size"}, 0);
  s.mlp_override = [base, shared](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                  const graph::Scope& layer) {
    blocks::MoESpec m = base;
    m.module = layer / "block_sparse_moe";
    m.router = m.module / "router";
    m.bare_experts = m.module / "experts";
    auto experts = blocks::mixture_of_experts(gb, x, moe::node_name(i), m);
    if (shared <= 0) return experts;
    auto dense = granitemoeshared::shared_mlp(gb, x, i, layer, m.hidden, shared, m.activation);
    return blocks::add(gb, dense, experts, fmt::format("Add_{}_shared", i));
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace granitemoe_swa_impl

const Family& granitemoe_swa_family() {
  static const Family family{"granitemoe_swa", "models/granitemoe_swa/modeling_granitemoe_swa.py",
                             classes("GraniteMoeSWA", {heads::ForCausalLM}), granitemoe_swa_impl::build};
  return family;
}

}  // namespace neurarch::families
