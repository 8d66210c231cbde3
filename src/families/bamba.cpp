// Bamba (models/bamba/modeling_bamba.py + configuration_bamba.py, transformers 4.57.6): Llama-shaped layers
// whose token mixer is attention on the layers listed in attn_layer_indices (none by default) and a Mamba-2
// mixer (`mamba`, with its gated RMSNorm) everywhere else; the gated MLP is `feed_forward`, the norms
// input_layernorm / pre_ff_layernorm / final_layernorm. Attention rotates partial_rotary_factor of each head.
#include <algorithm>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/hybrid_common.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families {
namespace bamba_impl {
namespace {

using namespace blocks;

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = decoder::read_llama_config(
      c, {.vocab = 128000, .hidden = 4096, .intermediate = 14336, .layers = 32, .heads = 32, .kv_heads = 8,
          .positions = 262144, .activation = "silu", .tie_word_embeddings = false});
  const bool bias = c.flag({"attention_bias"}, false);
  s.qkv_bias = bias;
  s.o_bias = bias;
  s.mlp_bias = c.flag({"mlp_bias"}, false);
  s.down_bias = s.mlp_bias;
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.names.mlp = "feed_forward";
  s.names.pre_ffn_norm = "pre_ff_layernorm";
  s.names.final_norm = "final_layernorm";

  std::vector<std::int64_t> attention_layers;
  if (const auto* listed = c.raw({"attn_layer_indices"}); listed && listed->is_array())
    for (const auto& v : *listed)
      if (v.is_number_integer()) attention_layers.push_back(v.get<std::int64_t>());
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
