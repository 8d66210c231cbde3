// GraniteMoeShared (models/granitemoeshared/modeling_granitemoeshared.py +
// configuration_granitemoeshared.py, transformers 4.57.6): GraniteMoE (granitemoe.cpp: stacked
// ParallelExperts input_linear / output_linear, router.layer) plus, when shared_intermediate_size > 0,
// a dense gated `shared_mlp` beside block_sparse_moe on the same normed input, its output added to
// the experts': input_linear [2 x shared_intermediate_size, hidden] (gate and up fused) and
// output_linear [hidden, shared_intermediate_size], no biases.
#include <fmt/format.h>

#include "families/granite.hpp"

namespace neurarch::families {

graph::Value granitemoeshared::shared_mlp(graph::GraphBuilder& b, const graph::Value& x, std::int64_t i,
                                          const graph::Scope& layer, std::int64_t hidden, std::int64_t width,
                                          const std::string& activation) {
  const graph::Scope mlp = layer / "shared_mlp";
  blocks::FeedForwardSpec f{.hidden = hidden, .intermediate = width, .activation = activation, .gated = true,
                            .module = mlp, .down = mlp / "output_linear", .gate_up = mlp / "input_linear",
                            .bias = false, .down_bias = false};
  return blocks::feed_forward(b, x, fmt::format("Shared_FFN_{}", i), f);
}

namespace granitemoeshared_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = granite::spec(c);
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  const blocks::MoESpec base = granitemoe::experts(c, s);
  const std::int64_t shared = c.integer({"shared_intermediate_size"}, 0);
  s.mlp_override = [base, shared](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                  const graph::Scope& layer) {
    const blocks::MoESpec m = granitemoe::in_layer(base, layer);
    auto experts = blocks::mixture_of_experts(gb, x, moe::node_name(i), m);
    if (shared <= 0) return experts;
    auto dense = granitemoeshared::shared_mlp(gb, x, i, layer, m.hidden, shared, m.activation);
    return blocks::add(gb, dense, experts, fmt::format("Add_{}_shared", i));
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace granitemoeshared_impl

const Family& granitemoeshared_family() {
  static const Family family{"granitemoeshared", "models/granitemoeshared/modeling_granitemoeshared.py",
                             classes("GraniteMoeShared", {heads::ForCausalLM}), granitemoeshared_impl::build};
  return family;
}

}  // namespace neurarch::families
