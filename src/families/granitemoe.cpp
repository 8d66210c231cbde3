// GraniteMoE (models/granitemoe/modeling_granitemoe.py + configuration_granitemoe.py,
// transformers 4.47.1): Granite's attention (attention_bias on q/k/v/o, head_dim = hidden / heads;
// the embedding/residual/attention/logit multipliers are scalars) with block_sparse_moe in every
// layer. Its experts are stacked ParallelExperts tensors: input_linear [experts, 2 x
// intermediate, hidden] (gate and up together), output_linear [experts, hidden, intermediate],
// and the router is router.layer [experts, hidden].
#include "families/granite.hpp"

namespace neurarch::families {

blocks::MoESpec granitemoe::experts(const Config& c, const decoder::DecoderSpec& s) {
  return {.hidden = s.hidden, .intermediate = s.intermediate, .experts = c.integer({"num_local_experts"}, 8),
          .top_k = c.integer({"num_experts_per_tok"}, 2), .activation = s.activation};
}

blocks::MoESpec granitemoe::in_layer(blocks::MoESpec m, const graph::Scope& layer) {
  m.module = layer / "block_sparse_moe";
  m.router = m.module / "router" / "layer";
  m.stacked_input = m.module / "input_linear";
  m.stacked_output = m.module / "output_linear";
  return m;
}

namespace granitemoe_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  decoder::DecoderSpec s = granite::spec(in.config);
  const blocks::MoESpec base = granitemoe::experts(in.config, s);
  s.mlp_override = moe::layer_hook(
      {}, [base](std::int64_t, const graph::Scope& layer) { return granitemoe::in_layer(base, layer); });
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace granitemoe_impl

const Family& granitemoe_family() {
  static const Family family{"granitemoe", "models/granitemoe/modeling_granitemoe.py",
                             classes("GraniteMoe", {heads::ForCausalLM}), granitemoe_impl::build};
  return family;
}

}  // namespace neurarch::families
