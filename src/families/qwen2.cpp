// Qwen2 (models/qwen2/modeling_qwen2.py + configuration_qwen2.py, transformers 4.47.1): Llama's
// layer with a bias on q/k/v (never on o_proj or the MLP). The 4.47.1 attention derives
// head_dim = hidden / heads and refuses a hidden size the heads do not divide. With
// use_sliding_window, layers from max_window_layers on attend within sliding_window tokens.
// The QA head keeps its historical `transformer.` prefix.
#include <algorithm>

#include "families/llama_common.hpp"

namespace neurarch::families {
namespace qwen2_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 151936, .hidden = 4096, .intermediate = 22016, .layers = 32, .heads = 32, .kv_heads = 32,
          .positions = 32768, .activation = "silu", .tie_word_embeddings = false});
  s.head_dim = s.hidden / s.heads;
  s.require_divisible = true;
  s.qkv_bias = true;
  if (c.flag({"use_sliding_window"}, false)) {
    const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
    const std::int64_t first = c.integer({"max_window_layers"}, 28);
    s.windows.assign(static_cast<std::size_t>(s.layers), 0);
    for (std::int64_t i = std::max<std::int64_t>(first, 0); i < s.layers; ++i)
      s.windows[static_cast<std::size_t>(i)] = window;
  }
  s.qa_prefix = "transformer";
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace qwen2_impl

const Family& qwen2_family() {
  static const Family family{"qwen2", "models/qwen2/modeling_qwen2.py", classes("Qwen2", heads::kDecoder), qwen2_impl::build};
  return family;
}

}  // namespace neurarch::families
