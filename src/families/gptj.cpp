// GPT-J (models/gptj/modeling_gptj.py + configuration_gptj.py, transformers 4.47.1): one
// LayerNorm (ln_1) feeds bias-free q/k/v/out_proj attention and an fc_in/fc_out MLP in parallel;
// rotary positions on rotary_dim channels (no tensors); the LM head has a bias and is untied by
// default. GPT-2's aliases (n_embd, n_layer, n_head, n_positions, n_inner null -> 4 * n_embd).
// The attention refuses hidden % heads != 0.
#include "families/llama_common.hpp"

namespace neurarch::families {

decoder::DecoderSpec decoder::gptj_spec(const Config& c) {
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, 50400);
  s.positions = c.dim({"n_positions", "max_position_embeddings"}, 2048);
  s.hidden = c.dim({"n_embd", "hidden_size"}, 4096);
  s.layers = c.dim({"n_layer", "num_hidden_layers"}, 28);
  s.heads = c.dim({"n_head", "num_attention_heads"}, 16);
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.intermediate = c.dim({"n_inner"}, 4 * s.hidden);
  s.activation = c.text({"activation_function"}, "gelu_new");
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, false);
  s.gated = false;
  s.mlp_bias = true;
  s.down_bias = true;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.parallel = true;
  s.lm_head_bias = true;
  s.prefix = "transformer";
  s.qa_prefix = "transformer";
  s.names = {.embed = "wte", .layers = "h", .attn = "attn", .o = "out_proj", .mlp = "mlp", .up = "fc_in",
             .down = "fc_out", .pre_attn_norm = "ln_1", .pre_ffn_norm = "", .final_norm = "ln_f"};
  return s;
}

namespace gptj_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  return decoder::build_decoder(in, b, decoder::gptj_spec(in.config));
}

}  // namespace
}  // namespace gptj_impl

const Family& gptj_family() {
  static const Family family{"gptj", "models/gptj/modeling_gptj.py",
                             classes("GPTJ",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForQuestionAnswering}),
                             gptj_impl::build};
  return family;
}

}  // namespace neurarch::families
