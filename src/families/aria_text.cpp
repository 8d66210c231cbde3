// Aria's text model (models/aria/modeling_aria.py + configuration_aria.py, transformers 4.57.6): Llama's
// attention with a mixture of experts in every layer. The router `mlp.router` (no bias) picks moe_topk of
// moe_num_experts experts, stored as grouped GEMM weights applied as x @ W: experts.fc1.weight [experts,
// hidden, 2 x intermediate] (gate and up halves) and experts.fc2.weight [experts, intermediate, hidden]. A
// shared Llama MLP of moe_num_shared_experts x intermediate (mlp_bias) sees every token and is added to the
// routed output: it is its own node here, so the routed node holds only what the router chooses between.
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace aria_text_impl {
namespace {

using namespace blocks;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 32000, .hidden = 4096, .intermediate = 4096, .layers = 32, .heads = 32, .kv_heads = 0,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  const bool mlp_bias = c.flag({"mlp_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  const MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate,
                     .experts = c.integer({"moe_num_experts"}, 8), .top_k = c.integer({"moe_topk"}, 2),
                     .activation = s.activation, .gate_up = "fc1.weight"};
  const std::int64_t shared = s.intermediate * c.integer({"moe_num_shared_experts"}, 2);
  s.mlp_override = [base, shared, mlp_bias](GraphBuilder& gb, const Value& x, std::int64_t i, const Scope& layer) {
    MoESpec m = base;
    m.module = layer / "mlp";
    m.router = m.module / "router";
    m.bare_experts = m.module / "experts";
    m.down = "fc2.weight";
    const auto routed = mixture_of_experts(gb, x, moe::node_name(i), m);
    const auto always = moe::dense_mlp(gb, x, i, m.module / "shared_experts", m.hidden, shared, m.activation, mlp_bias);
    return add(gb, routed, always, "MoE_Shared_Add_" + std::to_string(i));
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace aria_text_impl

const Family& aria_text_family() {
  static const Family family{"aria_text", "models/aria/modeling_aria.py",
                             classes("AriaText", {heads::ForCausalLM}), aria_text_impl::build};
  return family;
}

}  // namespace neurarch::families
