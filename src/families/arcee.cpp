// Arcee (models/arcee/modeling_arcee.py + configuration_arcee.py, transformers 4.57.6): Llama's
// layer with an ungated MLP (up_proj -> relu2 -> down_proj, mlp_bias on both) instead of SwiGLU;
// attention_bias covers q/k/v/o.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace arcee_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 32000, .hidden = 2560, .intermediate = 18432, .layers = 32, .heads = 32,
          .positions = 4096, .activation = "relu2", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.gated = false;
  s.mlp_bias = c.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace arcee_impl

const Family& arcee_family() {
  static const Family family{"arcee", "models/arcee/modeling_arcee.py",
                             classes("Arcee", {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             arcee_impl::build};
  return family;
}

}  // namespace neurarch::families
