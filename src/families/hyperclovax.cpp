// HyperCLOVA X SEED (models/hyperclovax/modular_hyperclovax.py + configuration_hyperclovax.py, transformers
// 5.24.0): Granite's decoder (granite.hpp: q/k/v/o biases by attention_bias, the MuP multipliers as config
// scalars) plus Peri-LN: with use_post_norm (the default) an RMSNorm `post_norm1` after the attention and
// `post_norm2` after the MLP, each before its residual add. Unlike Granite it reads head_dim (null: hidden /
// heads), and the config refuses a hidden size the heads do not divide.
#include <nlohmann/json.hpp>

#include "families/granite.hpp"

namespace neurarch::families {
namespace hyperclovax_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = granite::spec(c);
  if (const auto* head_dim = c.raw({"head_dim"}); head_dim && !head_dim->is_null()) s.head_dim = c.dim({"head_dim"});
  s.require_divisible = true;
  s.mlp_bias = c.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  if (c.flag({"use_post_norm"}, true)) {
    s.names.post_attn_norm = "post_norm1";
    s.names.post_ffn_norm = "post_norm2";
  }
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace hyperclovax_impl

const Family& hyperclovax_family() {
  static const Family family{"hyperclovax", "models/hyperclovax/modeling_hyperclovax.py",
                             classes("HyperCLOVAX", {heads::ForCausalLM}), hyperclovax_impl::build};
  return family;
}

}  // namespace neurarch::families
