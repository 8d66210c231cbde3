// BioGPT (models/biogpt/modeling_biogpt.py + configuration_biogpt.py, transformers 4.47.1): XGLM's
// pre-norm layer (BART names: self_attn.{q,k,v,out}_proj with biases, self_attn_layer_norm, fc1 / fc2,
// final_layer_norm; LayerNorms with bias) under `biogpt`, with learned positions offset by 2 rows
// (embed_positions [max_position_embeddings + 2, hidden]) and a final biogpt.layer_norm. The LM head is
// `output_projection`, tied to embed_tokens; sequence classification scores with a bias-free `score`,
// token classification with `classifier`. hidden_dropout_prob follows the attention and fc2,
// attention_probs_dropout_prob the probabilities, activation_dropout the activation.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace biogpt_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 42384, .hidden = 1024, .intermediate = 4096, .layers = 24, .heads = 16, .positions = 1024,
          .activation = "gelu", .tie_word_embeddings = true});
  s.head_dim = s.hidden / s.heads;
  s.position_offset = 2;
  s.gated = false;
  s.rotary = false;
  s.require_divisible = true;
  s.qkv_bias = true;
  s.o_bias = true;
  s.attention_dropout = c.number({"attention_probs_dropout_prob"}, 0.1);
  s.residual_dropout = c.number({"hidden_dropout_prob"}, 0.1);
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.prefix = "biogpt";
  s.qa_prefix = "biogpt";
  s.lm_head = "output_projection";
  s.token_classifier = "classifier";
  s.names.positions = "embed_positions";
  s.names.o = "out_proj";
  s.names.pre_attn_norm = "self_attn_layer_norm";
  s.names.pre_ffn_norm = "final_layer_norm";
  s.names.final_norm = "layer_norm";
  const double activation_dropout = c.number({"activation_dropout"}, 0.0);
  s.mlp_override = [hidden = s.hidden, width = s.intermediate, act = s.activation, activation_dropout,
                    residual = s.residual_dropout](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                                   const graph::Scope& layer) {
    blocks::FeedForwardSpec f{.hidden = hidden, .intermediate = width, .activation = act, .gated = false,
                              .module = layer, .up = layer / "fc1", .down = layer / "fc2", .bias = true,
                              .down_bias = true, .output_dropout = residual, .inner_dropout = activation_dropout};
    return blocks::feed_forward(gb, x, blocks::BlockNames{i}.ffn(), f);
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace biogpt_impl

const Family& biogpt_family() {
  static const Family family{"biogpt", "models/biogpt/modeling_biogpt.py",
                             classes("BioGpt", {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             biogpt_impl::build};
  return family;
}

}  // namespace neurarch::families
