// Command R7B (models/cohere2/modeling_cohere2.py + configuration_cohere2.py, transformers
// 4.57.6): Cohere's parallel block with bias-free LayerNorms, no q/k norm, head_dim as its own
// key, sliding windows per layer_types (default: three sliding layers, then one full).
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace cohere2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 256000, .hidden = 8192, .intermediate = 22528, .layers = 40, .heads = 64,
          .positions = 8192, .activation = "silu", .tie_word_embeddings = true});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.norm = blocks::NormKind::LayerNorm;
  s.parallel = true;
  s.names.pre_ffn_norm.clear();
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  s.windows = decoder::windows_from_layer_types(c, s.layers, window);
  if (s.windows.empty()) {
    const std::int64_t pattern = c.dim({"sliding_window_pattern", "_sliding_window_pattern"}, 4);
    for (std::int64_t i = 0; i < s.layers; ++i) s.windows.push_back((i + 1) % pattern != 0 ? window : 0);
  }
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace cohere2_impl

const Family& cohere2_family() {
  static const Family family{"cohere2", "models/cohere2/modeling_cohere2.py",
                             classes("Cohere2", {heads::ForCausalLM}), cohere2_impl::build};
  return family;
}

}  // namespace neurarch::families
