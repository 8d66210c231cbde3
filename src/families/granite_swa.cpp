// Granite SWA (models/granite_swa/modular_granite_swa.py + configuration_granite_swa.py, transformers 5.24.0):
// Granite's decoder (granite.hpp) with GPT-OSS-style attention sinks (`self_attn.sinks` [heads]; the reference has
// no SDPA path for them) and sliding windows by layer_types (default: every fourth layer from the first full, the
// rest sliding_window). layer_rope_theta gives each layer its RoPE base; 0 switches RoPE off for that layer (NoPE).
#include <nlohmann/json.hpp>

#include "families/granite.hpp"
#include "families/granite_swa.hpp"

namespace neurarch::families {
namespace granite_swa_impl {
namespace {

std::vector<std::int64_t> attention_windows(const Config& c, std::int64_t layers) {
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 128);
  if (c.raw({"layer_types"})) return decoder::windows_from_layer_types(c, layers, window);
  std::vector<std::int64_t> out(static_cast<std::size_t>(layers), window);
  for (std::int64_t i = 0; i < layers; i += 4) out[static_cast<std::size_t>(i)] = 0;
  return out;
}

std::vector<bool> rope_layers(const Config& c, std::int64_t layers) {
  std::vector<bool> out;
  const auto* thetas = c.raw({"layer_rope_theta"});
  if (!thetas || !thetas->is_array()) return out;
  out.assign(static_cast<std::size_t>(layers), true);
  for (std::size_t i = 0; i < out.size() && i < thetas->size(); ++i)
    out[i] = !(*thetas)[i].is_number() || (*thetas)[i].get<double>() != 0.0;
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s =
      granite::spec(c, {.vocab = 100352, .hidden = 2560, .intermediate = 8192, .layers = 24, .heads = 20,
                        .kv_heads = 4, .positions = 8192, .activation = "silu", .tie_word_embeddings = true});
  s.mlp_bias = c.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  granite_swa::sliding_attention(s, c);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace granite_swa_impl
using namespace granite_swa_impl;

void granite_swa::sliding_attention(decoder::DecoderSpec& s, const Config& c) {
  s.head_scalars = {"sinks"};
  s.eager_only = true;
  s.windows = granite_swa_impl::attention_windows(c, s.layers);
  s.rope_layers = granite_swa_impl::rope_layers(c, s.layers);
}

const Family& granite_swa_family() {
  static const Family family{"granite_swa", "models/granite_swa/modeling_granite_swa.py",
                             classes("GraniteSWA", {heads::ForCausalLM}), granite_swa_impl::build};
  return family;
}

}  // namespace neurarch::families
