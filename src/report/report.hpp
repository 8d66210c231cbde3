#pragma once
// The one object every renderer reads. Planners and checks add their sections here; renderers
// never look at the config or the families.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "checkpoint/compare.hpp"
#include "core/config.hpp"
#include "graph/graph.hpp"
#include "plan/plan.hpp"

namespace neurarch::report {

inline constexpr const char* kSchema = "neurarch.report/v1";

struct ModelInfo {
  std::string id;          ///< as the user named it, or the resolved Hub id
  std::string revision;    ///< commit or ref, "" when unknown
  std::string model_type;
  std::string class_name;
  std::string source;      ///< "path" | "stdin" | "hf-cache" | "catalogue" | "hub"
  std::string config_origin;
  std::string reference;   ///< the reference modeling file the family mirrors
};

/// One verifier finding (filled by the verifier's rules; see lint/).
struct Finding {
  std::string rule;      ///< stable id, e.g. "heads-divide-hidden"
  std::string severity;  ///< "error" | "warn" | "info"
  std::string node;      ///< graph node name, "" when the finding is about the config as a whole
  std::string message;   ///< one line naming the key or node and its value
  std::string fix;       ///< a concrete change that makes the finding go away
};

/// What the Hub itself says of the model (its model-info API), when it was asked.
struct HubFacts {
  std::string sha;
  std::string last_modified;
  std::string gated;
  std::optional<std::int64_t> downloads, likes;
  std::optional<std::int64_t> safetensors_total;  ///< the Hub's own parameter count: a second opinion
};

struct Report {
  ModelInfo model;
  nlohmann::json config;  ///< the config.json as given, for checks that read keys the graph does not carry
  graph::Graph graph;
  std::optional<checkpoint::Comparison> checkpoint;  ///< set when a checkpoint's headers were read
  std::vector<ConfigRead> config_reads;              ///< every key the family read, and where from
  std::vector<std::string> notes;
  std::vector<Finding> findings;
  std::optional<plan::Plan> plan;  ///< set by --plan
  std::optional<HubFacts> hub;

  std::int64_t derived_scalars() const { return graph.saved_scalars(); }
  /// derived - checkpoint; nullopt without a checkpoint.
  std::optional<std::int64_t> delta() const;
  /// delta as a percentage of the checkpoint's total.
  std::optional<double> delta_percent() const;
};

}  // namespace neurarch::report
