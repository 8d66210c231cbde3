#pragma once
// What a family's unit tests need besides the ground truth: the graph of a config written inline
// for one class, sequence and target length, and its nodes by name.
#include <cstdint>
#include <optional>
#include <string>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch::testing {

inline graph::Graph build_graph(const Config& c, const std::string& class_name,
                                std::optional<std::int64_t> seq = std::nullopt,
                                std::optional<std::int64_t> target = std::nullopt) {
  model::BuildOptions options;
  options.class_name = class_name;
  options.seq = seq;
  options.target_seq = target;
  return model::build_model(c, options).graph;
}

/// nullptr when no node has that name.
inline const graph::Node* find_node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace neurarch::testing
