// OLMoE (models/olmoe/modeling_olmoe.py + configuration_olmoe.py, transformers 4.47.1): Llama's
// pre-norm layer whose q and k are RMS-normalised over all heads at once (q_norm [hidden],
// k_norm [kv_heads * head_dim]; head_dim is always hidden / heads), attention_bias on q/k/v/o,
// and every MLP sparse: router `gate` [num_experts, hidden], experts.<i> of intermediate_size,
// no shared expert. clip_qkv clamps activations only.
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace olmoe_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 50304, .hidden = 2048, .intermediate = 2048, .layers = 16, .heads = 16,
          .positions = 4096, .activation = "silu", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.qk_norm = decoder::QkNorm::Full;
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate,
                             .experts = c.integer({"num_experts"}, 64), .top_k = c.integer({"num_experts_per_tok"}, 8),
                             .activation = s.activation};
  s.mlp_override = moe::layer_hook({}, moe::experts_under(base));
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace olmoe_impl

const Family& olmoe_family() {
  static const Family family{"olmoe", "models/olmoe/modeling_olmoe.py", classes("Olmoe", {heads::ForCausalLM}), olmoe_impl::build};
  return family;
}

}  // namespace neurarch::families
