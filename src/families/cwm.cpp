// CWM, Meta's Code World Model (models/cwm/modeling_cwm.py + configuration_cwm.py, transformers 5.24.0): Llama's
// layer (mlp_bias on gate/up/down, no attention bias) with head_dim 128 of its own, and sliding windows of
// sliding_window tokens on the layers layer_types marks (absent: every layer but each 4th, from layer 0, slides).
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace cwm_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 128256, .hidden = 6144, .intermediate = 21504, .layers = 64, .heads = 48, .kv_heads = 8,
          .head_dim = 128, .positions = 131072, .activation = "silu", .tie_word_embeddings = false});
  const bool mlp_bias = c.flag({"mlp_bias"}, false);
  s.mlp_bias = mlp_bias;
  s.down_bias = mlp_bias;
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 8192);
  s.windows = decoder::windows_from_layer_types(c, s.layers, window);
  if (s.windows.empty())
    for (std::int64_t i = 0; i < s.layers; ++i) s.windows.push_back(i % 4 == 0 ? 0 : window);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace cwm_impl

const Family& cwm_family() {
  static const Family family{"cwm", "models/cwm/modeling_cwm.py",
                             {{"CwmModel", Head::Base}, {"CwmForCausalLM", Head::CausalLM}}, cwm_impl::build};
  return family;
}

}  // namespace neurarch::families
