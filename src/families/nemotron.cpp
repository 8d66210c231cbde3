// Nemotron (models/nemotron/modeling_nemotron.py + configuration_nemotron.py, transformers
// 4.47.1): Llama's attention (attention_bias on q/k/v/o) with LayerNorm1P norms (weight and
// bias) and an ungated relu2 MLP (up_proj -> down_proj, mlp_bias on both); partial rotary adds
// nothing. The QA head keeps Llama's `transformer.` prefix.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace nemotron_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 256000, .hidden = 6144, .intermediate = 24576, .layers = 32, .heads = 48,
          .positions = 4096, .activation = "relu2", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.gated = false;
  s.mlp_bias = c.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  s.norm = blocks::NormKind::LayerNorm;
  s.norm_bias = true;
  s.qa_prefix = "transformer";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace nemotron_impl

const Family& nemotron_family() {
  static const Family family{"nemotron", "models/nemotron/modeling_nemotron.py",
                             classes("Nemotron", heads::kDecoder), nemotron_impl::build};
  return family;
}

}  // namespace neurarch::families
