// BitNet b1.58 (models/bitnet/modeling_bitnet.py + configuration_bitnet.py, transformers
// 4.57.6): Llama's layer with two sub-norms: attn_sub_norm [hidden] before o_proj and
// ffn_sub_norm [intermediate] before down_proj; relu2 gate. Weights are full-precision shaped.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace bitnet_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 128256, .hidden = 2560, .intermediate = 6912, .layers = 30, .heads = 20, .kv_heads = 5,
          .positions = 2048, .activation = "relu2", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.attn_sub_norm = "attn_sub_norm";
  s.ffn_sub_norm = "ffn_sub_norm";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace bitnet_impl

const Family& bitnet_family() {
  static const Family family{"bitnet", "models/bitnet/modeling_bitnet.py",
                             classes("BitNet", {heads::ForCausalLM}), bitnet_impl::build};
  return family;
}

}  // namespace neurarch::families
