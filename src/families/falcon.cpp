// Falcon (models/falcon/modeling_falcon.py + configuration_falcon.py, transformers 4.47.1): a fused
// query_key_value whose width follows the attention layout: (heads + 2 * num_kv_heads) * head_dim
// under new_decoder_architecture, hidden + 2 * head_dim for multi_query (one K/V head), 3 * hidden
// otherwise. `bias` switches every linear's bias; LayerNorms always have one. parallel_attn runs
// attention and MLP side by side off one input_layernorm, or off ln_attn / ln_mlp when
// new_decoder_architecture keeps two (num_ln_in_parallel_attn, default 2 there). alibi replaces
// RoPE (no tensors either way). ffn_hidden_size defaults to 4 * hidden_size (the keyword, not the
// legacy n_embed alias).
#include <fmt/format.h>

#include "families/llama_common.hpp"

namespace neurarch::families {
namespace falcon_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s;
  s.vocab = c.dim({"vocab_size"}, 65024);
  const std::int64_t hidden_keyword = c.dim({"hidden_size"}, 4544);
  s.hidden = c.dim({"n_embed", "hidden_size"}, 4544);
  s.layers = c.dim({"num_hidden_layers"}, 32);
  s.heads = c.dim({"num_attention_heads"}, 71);
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  const bool new_architecture = c.flag({"new_decoder_architecture"}, false);
  const bool multi_query = c.flag({"multi_query"}, true);
  const std::int64_t num_kv_heads = c.dim({"num_kv_heads"}, s.heads);
  s.kv_heads = new_architecture ? num_kv_heads : multi_query ? 1 : s.heads;
  s.intermediate = c.dim({"ffn_hidden_size"}, 4 * hidden_keyword);
  s.activation = c.text({"activation"}, "gelu");
  s.positions = c.dim({"max_position_embeddings"}, 2048);
  s.rotary = !c.flag({"alibi"}, false);
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  const bool bias = c.flag({"bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.mlp_bias = bias;
  s.down_bias = bias;
  s.gated = false;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.prefix = "transformer";
  s.qa_prefix = "transformer";
  s.token_classifier = "classifier";
  s.names = {.embed = "word_embeddings", .layers = "h", .attn = "self_attention", .o = "dense",
             .qkv = "query_key_value", .up = "dense_h_to_4h", .down = "dense_4h_to_h",
             .final_norm = "ln_f"};

  const bool parallel = c.flag({"parallel_attn"}, true);
  const std::int64_t parallel_norms = c.integer({"num_ln_in_parallel_attn"}, new_architecture ? 2 : 1);
  s.parallel = parallel;
  if (!parallel) {
    s.names.pre_attn_norm = "input_layernorm";
    s.names.pre_ffn_norm = "post_attention_layernorm";
  } else if (parallel_norms == 2) {
    s.names.pre_attn_norm = "ln_attn";
    s.names.pre_ffn_norm = "ln_mlp";
  } else {
    s.names.pre_attn_norm = "input_layernorm";
    s.names.pre_ffn_norm.clear();
  }
  auto out = decoder::build_decoder(in, b, s);
  // The layer's forward reads ln_attn whenever new_decoder_architecture has two norms, and leaves the
  // MLP input unset when it has one without parallel_attn: either way it never runs.
  if (new_architecture && !parallel)
    b.fail(out, "new_decoder_architecture without parallel_attn: the reference's layer cannot run its forward");
  else if (parallel && parallel_norms == 2 && !new_architecture)
    b.fail(out, "num_ln_in_parallel_attn = 2 needs new_decoder_architecture: the reference's forward reads "
                "input_layernorm, which it did not build");
  return out;
}

}  // namespace
}  // namespace falcon_impl

const Family& falcon_family() {
  static const Family family{"falcon", "models/falcon/modeling_falcon.py", classes("Falcon", heads::kDecoder), falcon_impl::build};
  return family;
}

}  // namespace neurarch::families
