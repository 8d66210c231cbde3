// VaultGemma (models/vaultgemma/modeling_vaultgemma.py + configuration_vaultgemma.py,
// transformers 4.57.6): Gemma 2 without the post-attention and post-feedforward norms
// (input_layernorm and pre_feedforward_layernorm only); layer_types alternate sliding and
// full attention starting with sliding.
#include "families/gemma2.hpp"

namespace neurarch::families {
namespace vaultgemma_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = gemma2::spec(c);
  s.names.post_attn_norm.clear();
  s.names.post_ffn_norm.clear();
  // layer_types, when given, overrides Gemma 2's alternation (which it spells out by default).
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  if (auto windows = decoder::windows_from_layer_types(c, s.layers, window); !windows.empty()) s.windows = windows;
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace vaultgemma_impl

const Family& vaultgemma_family() {
  static const Family family{"vaultgemma", "models/vaultgemma/modeling_vaultgemma.py",
                             classes("VaultGemma", {heads::ForCausalLM}), vaultgemma_impl::build};
  return family;
}

}  // namespace neurarch::families
