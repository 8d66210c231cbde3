#pragma once
// The verifier: architecture-aware rules over a traced report. Every rule reads only the Report
// (graph, raw config, what the family read, model info) and never rebuilds the model, so the
// findings always describe the graph the user is looking at.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "report/report.hpp"

namespace neurarch::lint {

/// What the user plans to do with the model; rules about training hygiene depend on it.
struct Options {
  /// The --seq the user asked for; nullopt: the sequence the report was traced at.
  std::optional<std::int64_t> seq;
  /// The user plans LoRA fine-tuning (frozen base, adapters trained).
  bool lora = false;
};

struct RuleInfo {
  std::string_view id;        ///< stable, e.g. "heads-divide-hidden"
  std::string_view group;     ///< "will-not-run" | "numerics" | "speed" | "hygiene"
  std::string_view severity;  ///< "error" | "warn" | "info"
  std::string_view summary;   ///< what the rule checks, one line
};

/// Findings of every rule, errors first, each group in table order.
std::vector<report::Finding> run(const report::Report& r, const Options& o = {});

/// Every rule, in the order of the rule table.
const std::vector<RuleInfo>& rules();

/// "error" -> 2, "warn" -> 1, "info" -> 0; -1 for anything else.
int severity_rank(std::string_view severity);

}  // namespace neurarch::lint
