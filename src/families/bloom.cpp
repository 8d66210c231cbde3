// BLOOM (models/bloom/modeling_bloom.py + configuration_bloom.py, transformers 4.47.1): ALiBi
// instead of positions (any length runs), a LayerNorm right after the word embeddings, fused
// query_key_value, biases everywhere, an ungated 4x MLP. Aliases n_layer, n_head; n_embed
// overrides hidden_size. Embeddings tied by default; the attention refuses hidden % heads != 0.
#include <limits>

#include "families/llama_common.hpp"

namespace neurarch::families {
namespace bloom_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s;
  s.rotary = false;  // ALiBi biases the scores; no RoPE copies
  s.vocab = c.dim({"vocab_size"}, 250880);
  s.hidden = c.dim({"n_embed", "hidden_size"}, 64);
  s.layers = c.dim({"n_layer", "num_hidden_layers"}, 2);
  s.heads = c.dim({"n_head", "num_attention_heads"}, 8);
  s.kv_heads = s.heads;
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.intermediate = 4 * s.hidden;
  s.activation = "gelu";
  s.positions = std::numeric_limits<std::int64_t>::max();  // ALiBi: no position table to outrun
  s.tie_word_embeddings = c.flag({"tie_word_embeddings"}, true);
  s.qkv_bias = true;
  s.o_bias = true;
  s.gated = false;
  s.mlp_bias = true;
  s.down_bias = true;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.prefix = "transformer";
  s.qa_prefix = "transformer";
  s.token_classifier = "classifier";
  s.names = {.embed = "word_embeddings", .embed_norm = "word_embeddings_layernorm", .layers = "h",
             .attn = "self_attention", .o = "dense", .qkv = "query_key_value", .up = "dense_h_to_4h",
             .down = "dense_4h_to_h", .final_norm = "ln_f"};
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace bloom_impl

const Family& bloom_family() {
  static const Family family{"bloom", "models/bloom/modeling_bloom.py", classes("Bloom", heads::kDecoder), bloom_impl::build};
  return family;
}

}  // namespace neurarch::families
