// DBRX (models/dbrx/modeling_dbrx.py + configuration_dbrx.py, transformers 4.47.1): a pre-norm
// decoder under `transformer` with Llama's residual layout and its own names: wte, blocks.<i>
// .norm_attn_norm.{norm_1, attn.{Wqkv, out_proj}, norm_2}, blocks.<i>.ffn, norm_f. Norms are
// LayerNorms without bias; Wqkv is [d_model + 2 x kv_n_heads x head_dim, d_model], head_dim =
// d_model / n_heads. Every ffn is a mixture of experts: router.layer [moe_num_experts, d_model]
// and the experts' GLU as three bare parameters experts.mlp.{w1, v1, w2}, each [moe_num_experts x
// ffn_hidden_size, d_model]. Attention and FFN settings sit in the nested attn_config / ffn_config.
#include <nlohmann/json.hpp>

#include "families/moe_common.hpp"

namespace neurarch::families {
namespace dbrx_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  // attn_config / ffn_config may be absent or a dict; their keys are read with their class defaults.
  const Config attn = c.child("attn_config");
  const Config ffn = c.child("ffn_config");
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, 32000);
  s.hidden = c.dim({"d_model"}, 2048);
  s.layers = c.dim({"n_layers"}, 24);
  s.heads = c.dim({"n_heads"}, 16);
  s.head_dim = s.hidden / s.heads;
  s.kv_heads = attn.dim({"kv_n_heads"}, 1);
  s.positions = c.dim({"max_seq_len"}, 2048);
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, false);
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = false;
  s.prefix = "transformer";
  s.names.embed = "wte";
  s.names.layers = "blocks";
  s.names.attn = "norm_attn_norm.attn";
  s.names.qkv = "Wqkv";
  s.names.o = "out_proj";
  s.names.pre_attn_norm = "norm_attn_norm.norm_1";
  s.names.pre_ffn_norm = "norm_attn_norm.norm_2";
  s.names.final_norm = "norm_f";
  std::string activation = "silu";
  if (const auto* act = ffn.raw({"ffn_act_fn"}); act && act->is_object() && act->contains("name") &&
                                                  (*act)["name"].is_string())
    activation = (*act)["name"].get<std::string>();
  s.activation = activation;
  const blocks::MoESpec base{.hidden = s.hidden, .intermediate = ffn.dim({"ffn_hidden_size"}, 3584),
                             .experts = ffn.integer({"moe_num_experts"}, 4), .top_k = ffn.integer({"moe_top_k"}, 1),
                             .activation = activation, .gate = "w1", .up = "v1", .down = "w2"};
  s.mlp_override = moe::layer_hook({}, [base](std::int64_t, const graph::Scope& layer) {
    blocks::MoESpec m = base;
    m.module = layer / "ffn";
    m.router = m.module / "router" / "layer";
    m.flat_experts = m.module / "experts" / "mlp";
    return m;
  });
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace dbrx_impl

const Family& dbrx_family() {
  static const Family family{"dbrx", "models/dbrx/modeling_dbrx.py", classes("Dbrx", {heads::ForCausalLM}), dbrx_impl::build};
  return family;
}

}  // namespace neurarch::families
