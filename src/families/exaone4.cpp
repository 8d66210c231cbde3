// EXAONE 4.0 (models/exaone4/modeling_exaone4.py + configuration_exaone4.py, transformers 4.57.6):
// OLMo 2's post-sublayer norms (post_attention_layernorm, post_feedforward_layernorm) with
// Qwen3's per-head q/k RMSNorms ([head_dim]); no biases. layer_types picks sliding layers; without it
// sliding_window_pattern does, as an integer (every pattern-th layer is full) or, as the published
// checkpoints write it, a string of L (local) and G (global) repeated over the layers, the last layer
// always global (the config's documented reading; 5.24.0 itself only reads layer_types from such files).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "families/exaone4.hpp"

namespace neurarch::families {
namespace exaone4_impl {
namespace {

std::vector<std::int64_t> pattern_windows(const Config& c, std::int64_t layers, std::int64_t window) {
  std::vector<std::int64_t> windows;
  if (window <= 0) return windows;
  const nlohmann::json* pattern = c.raw({"sliding_window_pattern"});
  if (pattern && pattern->is_string()) {
    const auto letters = pattern->get<std::string>();
    if (letters.empty() || letters.find_first_not_of("LG") != std::string::npos)
      throw Error(ErrorKind::InvalidInput, c.origin() + ": key 'sliding_window_pattern'",
                  fmt::format("expected a string of L (local) and G (global) or an integer, got \"{}\"", letters));
    for (std::int64_t i = 0; i < layers; ++i) {
      const bool local = letters[static_cast<std::size_t>(i) % letters.size()] == 'L' && i + 1 < layers;
      windows.push_back(local ? window : 0);
    }
    return windows;
  }
  const std::int64_t every = c.integer({"sliding_window_pattern"}, 4);
  if (every > 0)
    for (std::int64_t i = 0; i < layers; ++i) windows.push_back((i + 1) % every != 0 ? window : 0);
  return windows;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 102400, .hidden = 4096, .intermediate = 16384, .layers = 32, .heads = 32, .kv_heads = 32,
          .positions = 2048, .activation = "silu", .tie_word_embeddings = false});
  s.qk_norm = decoder::QkNorm::PerHead;
  s.names.pre_attn_norm.clear();
  s.names.post_attn_norm = "post_attention_layernorm";
  s.names.pre_ffn_norm.clear();
  s.names.post_ffn_norm = "post_feedforward_layernorm";
  s.windows = exaone4::windows(c, s.layers, 4096);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace exaone4_impl
using namespace exaone4_impl;

std::vector<std::int64_t> exaone4::windows(const Config& c, std::int64_t layers, std::int64_t default_window) {
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", default_window);
  std::vector<std::int64_t> out = decoder::windows_from_layer_types(c, layers, window);
  return out.empty() ? exaone4_impl::pattern_windows(c, layers, window) : out;
}

const Family& exaone4_family() {
  static const Family family{"exaone4", "models/exaone4/modeling_exaone4.py",
                             classes("Exaone4",
                                     {heads::ForCausalLM, heads::ForSequenceClassification, heads::ForTokenClassification}),
                             exaone4_impl::build};
  return family;
}

}  // namespace neurarch::families
