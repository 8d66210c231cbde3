#pragma once
// Pieces the sparse mixture-of-experts decoders share on top of the Llama-shaped stack: which
// layers are sparse, and the MLP hook that puts a MixtureOfExperts node (or a dense MLP) in a
// layer. Each family reads its own keys and names; nothing here knows a family.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "blocks/moe.hpp"
#include "families/llama_common.hpp"

namespace neurarch::families::moe {

/// Qwen-MoE's rule: layer i is sparse when it is not in `mlp_only_layers` and
/// (i + 1) % decoder_sparse_step == 0 (with experts > 0).
std::vector<bool> sparse_layers_by_step(const Config& c, std::int64_t layers, std::int64_t experts);

/// The rule of configs that list each layer's MLP (GLM-4.7-Flash, Hunyuan V3, Command MoE, K-EXAONE): layer i is
/// sparse when `mlp_layer_types[i]` is "sparse"; without the list, every layer from `dense_prefix()` on (read only
/// then, so the config's read log holds the key the family really used).
std::vector<bool> sparse_layers_by_type(const Config& c, std::int64_t layers,
                                        const std::function<std::int64_t()>& dense_prefix);

/// The dense gated MLP of a non-sparse layer under `module`, named like every family's FFN node.
graph::Value dense_mlp(graph::GraphBuilder& b, const graph::Value& x, std::int64_t i, const graph::Scope& module,
                       std::int64_t hidden, std::int64_t intermediate, const std::string& activation,
                       bool bias = false);

/// "MoE_3"
std::string node_name(std::int64_t layer);

/// An MLP hook for DecoderSpec::mlp_override: layer i gets the experts `make(i, layer_scope)`
/// describes when sparse[i], else `dense(...)`; `sparse` empty means every layer is sparse.
using SpecForLayer = std::function<blocks::MoESpec(std::int64_t, const graph::Scope&)>;
using DenseForLayer =
    std::function<graph::Value(graph::GraphBuilder&, const graph::Value&, std::int64_t, const graph::Scope&)>;
/// The experts most families declare: `base` under `<layer>.<module>`, router `gate`, experts `experts`, and
/// the shared expert under `shared` when it is not empty.
SpecForLayer experts_under(blocks::MoESpec base, std::string module = "mlp", std::string shared = "");

/// The dense layers most families declare: dense_mlp under `<layer>.<module>`.
DenseForLayer dense_under(std::int64_t hidden, std::int64_t intermediate, std::string activation,
                          std::string module = "mlp");

decltype(decoder::DecoderSpec::mlp_override) layer_hook(std::vector<bool> sparse, SpecForLayer make,
                                                        DenseForLayer dense = {});

}  // namespace neurarch::families::moe
