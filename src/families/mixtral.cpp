// Mixtral (models/mixtral/modeling_mixtral.py + configuration_mixtral.py, transformers 4.47.1):
// Mistral's attention (no biases, 8 KV heads, head_dim key else hidden / heads, sliding_window
// null by default) with every MLP replaced by block_sparse_moe: a bias-free router `gate`
// [num_local_experts, hidden] and experts.<i>.{w1 (gate), w3 (up), w2 (down)}, each token sent
// to num_experts_per_tok of them.
#include "families/mixtral.hpp"

#include "families/moe_common.hpp"

namespace neurarch::families {

namespace mixtral {

decoder::DecoderSpec spec(const Config& c, const Defaults& defaults) {
  decoder::DecoderSpec s = decoder::read_llama_config(c, defaults.llama);
  s.window = decoder::window_or_none(c, "sliding_window", 0);
  const std::int64_t experts = c.integer({"num_local_experts"}, defaults.num_local_experts);
  const std::int64_t top_k = c.integer({"num_experts_per_tok"}, defaults.num_experts_per_tok);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate, .experts = experts, .top_k = top_k,
                             .activation = s.activation, .gate = "w1", .up = "w3", .down = "w2"};
  s.mlp_override = moe::layer_hook({}, moe::experts_under(base, "block_sparse_moe"));
  return s;
}

}  // namespace mixtral

namespace mixtral_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, mixtral::spec(in.config));
}

}  // namespace
}  // namespace mixtral_impl

const Family& mixtral_family() {
  static const Family family{"mixtral", "models/mixtral/modeling_mixtral.py",
                             classes("Mixtral", {heads::ForCausalLM, heads::ForSequenceClassification}), mixtral_impl::build};
  return family;
}

}  // namespace neurarch::families
