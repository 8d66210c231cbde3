#pragma once
// The core verb: resolved model -> report. It runs every stage in order (build the graph, compare the
// checkpoint, plan, verify), so that report/ stays the data every stage fills and the renderers read;
// the command line, the server, the Python binding, the tracker and the calibration all trace here.
#include <filesystem>
#include <optional>

#include "model/build.hpp"
#include "plan/plan.hpp"
#include "report/report.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::pipeline {

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

report::Report trace(const resolve::ResolvedModel& model, const TraceOptions& options = {});

}  // namespace neurarch::pipeline
