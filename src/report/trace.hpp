#pragma once
// The core verb: resolved model -> report (graph, tensors, checkpoint comparison).
#include <filesystem>
#include <optional>

#include "model/build.hpp"
#include "report/report.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::report {

struct TraceOptions {
  model::BuildOptions build;
  /// Read the checkpoint headers from this folder or file instead of the model's own folder.
  std::optional<std::filesystem::path> checkpoint;
  bool read_checkpoint = true;
};

Report trace(const resolve::ResolvedModel& model, const TraceOptions& options = {});

}  // namespace neurarch::report
