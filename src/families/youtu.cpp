// Youtu-LLM (models/youtu/modular_youtu.py + configuration_youtu.py, transformers 5.24.0): Llama's dense stack
// (gate/up/down MLP without biases, tied head by default) whose attention is DeepSeek-V3's multi-head latent
// attention (deepseek_common.hpp) with DeepSeek-V3's ranks and head widths as defaults. The config drops V3's
// mixture-of-experts keys: every layer is dense.
#include "families/deepseek_common.hpp"

namespace neurarch::families {
namespace youtu_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  const deepseek::Defaults d{.llama = {.vocab = 128256, .hidden = 2048, .intermediate = 6144, .layers = 32,
                                       .heads = 16, .kv_heads = 16, .positions = 131072, .activation = "silu",
                                       .tie_word_embeddings = true}};
  decoder::DecoderSpec s = decoder::read_llama_config(c, d.llama);
  s.attention_override = deepseek::latent_attention_in_layers(c, s, d);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace youtu_impl

const Family& youtu_family() {
  static const Family family{"youtu", "models/youtu/modeling_youtu.py", classes("Youtu", {heads::ForCausalLM}),
                             youtu_impl::build};
  return family;
}

}  // namespace neurarch::families
