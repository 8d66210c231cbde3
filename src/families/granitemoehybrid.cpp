// GraniteMoeHybrid, IBM Granite 4.0 (models/granitemoehybrid/modular_granitemoehybrid.py +
// configuration_granitemoehybrid.py, transformers 5.24.0): GraniteMoeShared's layer (Granite's attention, the
// stacked block_sparse_moe experts) whose token mixer is Bamba's Mamba-2 mixer (`mamba`) on the layers
// layer_types (alias layers_block_type) calls "mamba" / "linear_attention" (every layer by default) and attention
// elsewhere. Unlike GraniteMoeShared, shared_mlp always exists, and with num_local_experts 0 (the dense Granite 4.0
// models) it is the whole feed-forward. RoPE only when position_embedding_type is "rope" (default None: no
// positions at all; the published "nope" likewise).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "families/granite.hpp"
#include "families/hybrid_common.hpp"

namespace neurarch::families {
namespace granitemoehybrid_impl {
namespace {

// The reference remaps the legacy "mamba" to "linear_attention" and builds attention for every other type.
std::vector<bool> mamba_layers(const Config& c, std::int64_t layers) {
  std::vector<bool> out(static_cast<std::size_t>(layers), true);
  if (const auto* types = c.raw({"layer_types", "layers_block_type"}); types && types->is_array())
    for (std::size_t i = 0; i < out.size() && i < types->size(); ++i) {
      const auto& t = (*types)[i];
      out[i] = t.is_string() && (t.get<std::string>() == "mamba" || t.get<std::string>() == "linear_attention");
    }
  return out;
}

graph::Value build(const BuildInput& in, graph::GraphBuilder& b) {
  const Config& c = in.config;
  decoder::DecoderSpec s = granite::spec(c);
  s.attention_dropout = c.number({"attention_dropout"}, 0.0);
  s.rotary = c.text({"position_embedding_type"}, "") == "rope";

  const blocks::MoESpec base = granitemoe::experts(c, s);
  const std::int64_t shared = c.integer({"shared_intermediate_size"}, 1024);
  s.mlp_override = [base, shared](graph::GraphBuilder& gb, const graph::Value& x, std::int64_t i,
                                  const graph::Scope& layer) {
    auto dense = granitemoeshared::shared_mlp(gb, x, i, layer, base.hidden, shared, base.activation);
    if (base.experts <= 0) return dense;
    auto experts = blocks::mixture_of_experts(gb, x, moe::node_name(i), granitemoe::in_layer(base, layer));
    return blocks::add(gb, experts, dense, fmt::format("Add_{}_shared", i));
  };

  const blocks::MambaMixerSpec mixer = hybrid::mamba2_mixer(c, s.hidden, {.heads = 128, .state = 256});
  s.attention_override = [mixer, mamba = mamba_layers(c, s.layers)](graph::GraphBuilder& gb, const graph::Value& x,
                                                                    std::int64_t i, const graph::Scope& layer) {
    const auto at = static_cast<std::size_t>(i);
    if (at >= mamba.size() || !mamba[at]) return graph::Value{};  // an attention layer: the default path
    blocks::MambaMixerSpec m = mixer;
    m.module = layer / "mamba";
    return blocks::mamba_mixer(gb, x, fmt::format("Mixer_{}", i), m);
  };
  return decoder::build_decoder(in, b, s);
}

}  // namespace
}  // namespace granitemoehybrid_impl

const Family& granitemoehybrid_family() {
  static const Family family{"granitemoehybrid", "models/granitemoehybrid/modeling_granitemoehybrid.py",
                             classes("GraniteMoeHybrid", {heads::ForCausalLM}), granitemoehybrid_impl::build};
  return family;
}

}  // namespace neurarch::families
