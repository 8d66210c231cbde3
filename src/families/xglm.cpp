// XGLM (models/xglm/modeling_xglm.py + configuration_xglm.py, transformers 4.47.1): a pre-norm
// decoder with BART's layer names: self_attn.{q,k,v,out}_proj with biases, self_attn_layer_norm,
// fc1 / fc2 directly under the layer, final_layer_norm, and a final model.layer_norm; LayerNorms with
// bias. Positions are a fixed sinusoid kept in a non-persistent buffer and regrown on demand (no
// saved tensor, no length limit); embeddings are scaled by sqrt(d_model) when scale_embedding. The
// attention class has no SDPA path. dropout follows the attention and fc2, attention_dropout the
// probabilities, activation_dropout the activation. The LM head is tied by default.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace xglm_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, 256008);
  s.hidden = c.dim({"d_model", "hidden_size"}, 1024);
  s.layers = c.dim({"num_layers", "num_hidden_layers"}, 24);
  s.heads = c.dim({"attention_heads", "num_attention_heads"}, 16);
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.intermediate = c.dim({"ffn_dim"}, 4096);
  s.positions = c.dim({"max_position_embeddings"}, 2048);
  s.activation = c.text({"activation_function"}, "gelu");
  s.gated = false;
  s.rotary = false;
  s.eager_only = true;
  s.require_divisible = true;
  s.qkv_bias = true;
  s.o_bias = true;
  s.attention_dropout = c.number({"attention_dropout"}, 0.1);
  s.residual_dropout = c.number({"dropout"}, 0.1);
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  s.names.o = "out_proj";
  s.names.pre_attn_norm = "self_attn_layer_norm";
  s.names.pre_ffn_norm = "final_layer_norm";
  s.names.final_norm = "layer_norm";
  const double activation_dropout = c.number({"activation_dropout"}, 0.0);
  s.mlp_override = [s_hidden = s.hidden, width = s.intermediate, act = s.activation, activation_dropout,
                    residual = s.residual_dropout](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                                   const graph::Scope& layer) {
    blocks::FeedForwardSpec f{.hidden = s_hidden, .intermediate = width, .activation = act, .gated = false,
                              .module = layer, .up = layer / "fc1", .down = layer / "fc2", .bias = true,
                              .down_bias = true, .output_dropout = residual, .inner_dropout = activation_dropout};
    return blocks::feed_forward(gb, x, blocks::BlockNames{i}.ffn(), f);
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace xglm_impl

const Family& xglm_family() {
  static const Family family{"xglm", "models/xglm/modeling_xglm.py", classes("XGLM", {heads::ForCausalLM}), xglm_impl::build};
  return family;
}

}  // namespace neurarch::families
