#include "families/moe_common.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace neurarch::families::moe {

std::vector<bool> sparse_layers_by_step(const Config& c, std::int64_t layers, std::int64_t experts) {
  const std::int64_t step = c.integer({"decoder_sparse_step"}, 1);
  std::vector<std::int64_t> dense_only;
  if (const auto* only = c.raw({"mlp_only_layers"}); only && only->is_array())
    for (const auto& v : *only)
      if (v.is_number_integer()) dense_only.push_back(v.get<std::int64_t>());
  std::vector<bool> out(static_cast<std::size_t>(std::max<std::int64_t>(layers, 0)), false);
  for (std::int64_t i = 0; i < layers; ++i) {
    const bool listed = std::find(dense_only.begin(), dense_only.end(), i) != dense_only.end();
    // The reference takes (i + 1) % step; a step of 0 would raise ZeroDivisionError there, so no
    // layer is sparse here rather than guessing.
    out[static_cast<std::size_t>(i)] = !listed && experts > 0 && step > 0 && (i + 1) % step == 0;
  }
  return out;
}

std::vector<bool> sparse_layers_by_type(const Config& c, std::int64_t layers,
                                        const std::function<std::int64_t()>& dense_prefix) {
  std::vector<bool> out(static_cast<std::size_t>(std::max<std::int64_t>(layers, 0)));
  if (const auto* types = c.raw({"mlp_layer_types"}); types && types->is_array()) {
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = i < types->size() && (*types)[i].is_string() && (*types)[i].get<std::string>() == "sparse";
    return out;
  }
  const std::int64_t dense = dense_prefix();
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<std::int64_t>(i) >= dense;
  return out;
}

graph::Value dense_mlp(graph::GraphBuilder& b, const graph::Value& x, std::int64_t i, const graph::Scope& module,
                       std::int64_t hidden, std::int64_t intermediate, const std::string& activation, bool bias) {
  blocks::FeedForwardSpec f{.hidden = hidden, .intermediate = intermediate, .activation = activation, .gated = true,
                            .module = module, .up = module / "up_proj", .down = module / "down_proj",
                            .gate = module / "gate_proj", .bias = bias, .down_bias = bias};
  return blocks::feed_forward(b, x, blocks::BlockNames{i}.ffn(), f);
}

std::string node_name(std::int64_t layer) { return fmt::format("MoE_{}", layer); }

SpecForLayer experts_under(blocks::MoESpec base, std::string module, std::string shared) {
  return [base = std::move(base), module = std::move(module), shared = std::move(shared)](std::int64_t,
                                                                                          const graph::Scope& layer) {
    blocks::MoESpec m = base;
    m.module = layer / module;
    m.router = m.module / "gate";
    m.experts_module = m.module / "experts";
    if (!shared.empty()) m.shared = m.module / shared;
    return m;
  };
}

DenseForLayer dense_under(std::int64_t hidden, std::int64_t intermediate, std::string activation, std::string module) {
  return [hidden, intermediate, activation = std::move(activation), module = std::move(module)](
             graph::GraphBuilder& b, const graph::Value& x, std::int64_t i, const graph::Scope& layer) {
    return dense_mlp(b, x, i, layer / module, hidden, intermediate, activation);
  };
}

decltype(decoder::DecoderSpec::mlp_override) layer_hook(std::vector<bool> sparse, SpecForLayer make,
                                                        DenseForLayer dense) {
  return [sparse = std::move(sparse), make = std::move(make), dense = std::move(dense)](
             graph::GraphBuilder& b, const graph::Value& x, std::int64_t i, const graph::Scope& layer) {
    const auto at = static_cast<std::size_t>(i);
    if (at < sparse.size() && !sparse[at] && dense) return dense(b, x, i, layer);
    return blocks::mixture_of_experts(b, x, node_name(i), make(i, layer));
  };
}

}  // namespace neurarch::families::moe
