// Bamba (models/bamba/modeling_bamba.py + configuration_bamba.py, transformers 4.57.6): Llama-shaped layers
// whose token mixer is attention on the layers listed in attn_layer_indices (none by default) and a Mamba-2
// mixer (`mamba`, with its gated RMSNorm) everywhere else; the gated MLP is `feed_forward`, the norms
// input_layernorm / pre_ff_layernorm / final_layernorm. Attention rotates partial_rotary_factor of each head.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/config_lists.hpp"
#include "families/hybrid_common.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace bamba_impl {
namespace {

using namespace blocks;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = hybrid::llama_shaped_spec(c, 262144);

  const std::vector<std::int64_t> attention_layers = index_list(c, "attn_layer_indices");
  const MambaMixerSpec mixer = hybrid::mamba2_mixer(c, s.hidden, {.heads = 128, .state = 256});
  s.attention_override = [mixer, attention_layers](GraphBuilder& gb, const Value& x, std::int64_t i,
                                                   const Scope& layer) {
    if (std::find(attention_layers.begin(), attention_layers.end(), i) != attention_layers.end()) return Value{};
    MambaMixerSpec m = mixer;
    m.module = layer / "mamba";
    return mamba_mixer(gb, x, fmt::format("Mixer_{}", i), m);
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace bamba_impl

const Family& bamba_family() {
  static const Family family{"bamba", "models/bamba/modeling_bamba.py", classes("Bamba", {heads::ForCausalLM}), bamba_impl::build};
  return family;
}

}  // namespace neurarch::families
