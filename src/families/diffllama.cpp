// DiffLlama (models/diffllama/modeling_diffllama.py + configuration_diffllama.py, transformers
// 4.57.6): Llama's layer with differential attention, which adds four [head_dim] vectors per
// layer (lambda_q1, lambda_k1, lambda_q2, lambda_k2); its group norm has no parameters.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace diffllama_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 32000, .hidden = 2048, .intermediate = 8192, .layers = 16, .heads = 32,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.head_vectors = {"lambda_q1", "lambda_k1", "lambda_q2", "lambda_k2"};
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace diffllama_impl

const Family& diffllama_family() {
  static const Family family{"diffllama", "models/diffllama/modeling_diffllama.py",
                             classes("DiffLlama", {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             diffllama_impl::build};
  return family;
}

}  // namespace neurarch::families
