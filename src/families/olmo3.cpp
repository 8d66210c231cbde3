// OLMo 3 (models/olmo3/modeling_olmo3.py + configuration_olmo3.py, transformers 4.57.6): OLMo 2's
// post-sublayer norms and whole-width q/k norms, with sliding windows per layer_types (by
// default three sliding layers, then one full).
#include "families/olmo.hpp"

namespace neurarch::families {
namespace olmo3_impl {
namespace {

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = olmo2::spec(c);
  const std::int64_t window = decoder::window_or_none(c, "sliding_window", 4096);
  s.windows = decoder::windows_from_layer_types(c, s.layers, window);
  if (s.windows.empty())
    for (std::int64_t i = 0; i < s.layers; ++i) s.windows.push_back((i + 1) % 4 != 0 ? window : 0);
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace olmo3_impl

const Family& olmo3_family() {
  static const Family family{"olmo3", "models/olmo3/modeling_olmo3.py", classes("Olmo3", {heads::ForCausalLM}), olmo3_impl::build};
  return family;
}

}  // namespace neurarch::families
