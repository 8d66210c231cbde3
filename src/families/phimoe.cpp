// PhiMoE (models/phimoe/modeling_phimoe.py + configuration_phimoe.py, transformers 4.47.1):
// Mixtral's layout (block_sparse_moe with router `gate` and experts.<i>.{w1, w3, w2}) but with
// LayerNorms that carry a bias, attention_bias on q/k/v/o, head_dim = hidden / heads, and an LM
// head bias when lm_head_bias is set. Routing is sparsemixer over num_experts_per_tok experts.
#include "families/moe_common.hpp"

namespace neurarch::families {
namespace phimoe_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 32064, .hidden = 4096, .intermediate = 6400, .layers = 32, .heads = 32, .kv_heads = 8,
          .positions = 4096 * 32, .activation = "silu", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.lm_head_bias = c.flag({"lm_head_bias"}, false);
  s.window = decoder::window_or_none(c, "sliding_window", 0);
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = s.intermediate,
                             .experts = c.integer({"num_local_experts"}, 16),
                             .top_k = c.integer({"num_experts_per_tok"}, 2), .activation = s.activation,
                             .gate = "w1", .up = "w3", .down = "w2"};
  s.mlp_override = moe::layer_hook({}, moe::experts_under(base, "block_sparse_moe"));
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace phimoe_impl

const Family& phimoe_family() {
  static const Family family{"phimoe", "models/phimoe/modeling_phimoe.py",
                             classes("Phimoe", {heads::ForCausalLM, heads::ForSequenceClassification}), phimoe_impl::build};
  return family;
}

}  // namespace neurarch::families
