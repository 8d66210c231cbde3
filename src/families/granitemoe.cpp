// GraniteMoE (models/granitemoe/modeling_granitemoe.py + configuration_granitemoe.py,
// transformers 4.47.1): Granite's attention (attention_bias on q/k/v/o, head_dim = hidden / heads;
// the embedding/residual/attention/logit multipliers are scalars) with block_sparse_moe in every
// layer. Its experts are stacked ParallelExperts tensors: input_linear [experts, 2 x
// intermediate, hidden] (gate and up together), output_linear [experts, hidden, intermediate],
// and the router is router.layer [experts, hidden].
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 32000, .hidden = 4096, .intermediate = 11008, .layers = 32, .heads = 32,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate,
                             .experts = c.integer({"num_local_experts"}, 8),
                             .top_k = c.integer({"num_experts_per_tok"}, 2), .activation = s.activation};
  s.mlp_override = moe::layer_hook({}, [base](std::int64_t, const graph::Scope& layer) {
    blocks::MoESpec m = base;
    m.module = layer / "block_sparse_moe";
    m.router = m.module / "router" / "layer";
    m.stacked_input = m.module / "input_linear";
    m.stacked_output = m.module / "output_linear";
    return m;
  });
  return decoder::build_decoder(in, b, s);
}

}  // namespace

const Family& granitemoe_family() {
  static const Family family{"granitemoe", "models/granitemoe/modeling_granitemoe.py",
                             classes("GraniteMoe", {heads::ForCausalLM}), build};
  return family;
}

}  // namespace neurarch::families
