// MPT (models/mpt/modeling_mpt.py + configuration_mpt.py, transformers 4.47.1): MosaicML's decoder
// under `transformer`: wte, blocks.<i>.{norm_1, attn.{Wqkv, out_proj}, norm_2, ffn.{up_proj,
// down_proj}}, norm_f. Positions are ALiBi (no position table, no RoPE). The reference hard-codes what
// llm-foundry configured: every linear is bias-free and LayerNorms drop their bias whatever
// `no_bias` says, the MLP is 4 x d_model wide with exact GELU whatever `expansion_ratio` says, and
// attention is its own eager matmul + fp32 softmax (ALiBi is an additive bias SDPA is not given).
// attn_config is a nested dict (or an MptAttentionConfig) whose attn_pdrop drops attention
// probabilities, the attention output and the MLP output.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace mpt_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  const Config attn = c.child("attn_config");
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, 50368);
  s.hidden = c.dim({"d_model", "hidden_size"}, 2048);
  s.layers = c.dim({"n_layers", "num_hidden_layers"}, 24);
  s.heads = c.dim({"n_heads", "num_attention_heads"}, 16);
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.intermediate = 4 * s.hidden;
  s.positions = c.dim({"max_seq_len"}, 2048);
  s.activation = "gelu";
  s.gated = false;
  s.rotary = false;
  s.eager_only = true;
  s.attention_dropout = attn.number({"attn_pdrop"}, 0.0);
  s.residual_dropout = s.attention_dropout;
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = false;
  s.prefix = "transformer";
  s.qa_prefix = "transformer";
  s.token_classifier = "classifier";
  s.names.embed = "wte";
  s.names.layers = "blocks";
  s.names.attn = "attn";
  s.names.qkv = "Wqkv";
  s.names.o = "out_proj";
  s.names.mlp = "ffn";
  s.names.pre_attn_norm = "norm_1";
  s.names.pre_ffn_norm = "norm_2";
  s.names.final_norm = "norm_f";
  s.require_divisible = true;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace mpt_impl

const Family& mpt_family() {
  static const Family family{"mpt",
                             "models/mpt/modeling_mpt.py",
                             {{"MptModel", Head::Base},
                              {"MptForCausalLM", Head::CausalLM},
                              {"MptForSequenceClassification", Head::SequenceClassification},
                              {"MptForTokenClassification", Head::TokenClassification},
                              {"MptForQuestionAnswering", Head::QuestionAnswering},
                              // MosaicML's own configs name llm-foundry's class (auto_map, remote code),
                              // whose state dict is the one MptForCausalLM loads.
                              {"MPTForCausalLM", Head::CausalLM}},
                             mpt_impl::build};
  return family;
}

}  // namespace neurarch::families
