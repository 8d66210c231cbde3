#pragma once
// The core verb: resolved model -> report (graph, tensors, checkpoint comparison).
#include <filesystem>
#include <optional>

#include "model/build.hpp"
#include "plan/plan.hpp"
#include "report/report.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::report {

struct TraceOptions {
  model::BuildOptions build;
  /// Read the checkpoint headers from this folder or file instead of the model's own folder.
  std::optional<std::filesystem::path> checkpoint;
  bool read_checkpoint = true;
  /// Set by --plan: memory, card fit, split and cost.
  std::optional<plan::PlanOptions> plan;
  /// Run the verifier's rules into Report::findings.
  bool lint = true;
};

Report trace(const resolve::ResolvedModel& model, const TraceOptions& options = {});

}  // namespace neurarch::report
