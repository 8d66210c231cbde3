#pragma once
// Building a vision model from an inline config and finding its nodes by name: what every
// image family's shape tests do first.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch::test_support {

inline model::BuiltModel build(nlohmann::json config, const std::string& cls = "",
                               std::optional<std::int64_t> size = {}) {
  model::BuildOptions options;
  options.class_name = cls;
  options.image_size = size;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

inline const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace neurarch::test_support
