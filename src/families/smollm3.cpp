// SmolLM3 (models/smollm3/modeling_smollm3.py + configuration_smollm3.py, transformers 4.57.6):
// Llama's layer (attention_bias on q/k/v/o, mlp_bias on the MLP) where some layers skip RoPE
// (no_rope_layers: no tensors change). Embeddings are tied by default; windows follow Qwen2's
// rules. The QA head inherits Llama's `transformer.` prefix.
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace smollm3_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 128256, .hidden = 2048, .intermediate = 11008, .layers = 36, .heads = 16, .kv_heads = 4,
          .positions = 32768, .activation = "silu", .tie_word_embeddings = true});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.mlp_bias = c.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  s.windows = decoder::qwen_windows(c, s.layers, 0, 28);
  s.qa_prefix = "transformer";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace smollm3_impl

const Family& smollm3_family() {
  static const Family family{"smollm3", "models/smollm3/modeling_smollm3.py",
                             classes("SmolLM3", heads::kDecoder), smollm3_impl::build};
  return family;
}

}  // namespace neurarch::families
