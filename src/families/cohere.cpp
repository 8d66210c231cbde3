// Command-R (models/cohere/modeling_cohere.py + configuration_cohere.py, transformers 4.47.1):
// one bias-free LayerNorm feeds attention and MLP in parallel (out = x + attn + mlp, no
// post-attention norm). use_qk_norm adds LayerNorms with a weight per head ([heads, head_dim]).
// The attention refuses hidden % heads != 0; embeddings are tied by default.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace cohere_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 256000, .hidden = 8192, .intermediate = 22528, .layers = 40, .heads = 64,
          .positions = 8192, .activation = "silu", .tie_word_embeddings = true});
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.norm = blocks::NormKind::LayerNorm;
  s.parallel = true;
  s.names.pre_ffn_norm.clear();
  if (c.flag({"use_qk_norm"}, false)) s.qk_norm = decoder::QkNorm::Stacked;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace cohere_impl

const Family& cohere_family() {
  static const Family family{"cohere", "models/cohere/modeling_cohere.py",
                             classes("Cohere", {heads::ForCausalLM}), cohere_impl::build};
  return family;
}

}  // namespace neurarch::families
