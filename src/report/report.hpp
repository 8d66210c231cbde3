#pragma once
// The one object every renderer reads. Planners and checks add their sections here; renderers
// never look at the config or the families.
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/compare.hpp"
#include "core/config.hpp"
#include "graph/graph.hpp"

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

struct Report {
  ModelInfo model;
  graph::Graph graph;
  std::optional<checkpoint::Comparison> checkpoint;  ///< set when a checkpoint's headers were read
  std::vector<ConfigRead> config_reads;              ///< every key the family read, and where from
  std::vector<std::string> notes;

  std::int64_t derived_scalars() const { return graph.saved_scalars(); }
  /// derived - checkpoint; nullopt without a checkpoint.
  std::optional<std::int64_t> delta() const;
  /// delta as a percentage of the checkpoint's total.
  std::optional<double> delta_percent() const;
};

}  // namespace neurarch::report
