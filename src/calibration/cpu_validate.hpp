#pragma once
// The planner against training steps measured exactly on the CPU (tools/measure_cpu): each row is
// planned with the CPU runtime profile (data/runtime-cpu.json) and every phase's planned peak is
// compared with the measured one.
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "calibration/cpu_rows.hpp"
#include "calibration/statistics.hpp"
#include "core/error.hpp"
#include "plan/hardware.hpp"

namespace neurarch::calibration {

/// What the planner needs to predict live tensor bytes on the CPU: the runtime constants (no CUDA
/// context, no cuBLAS workspace, no allocator rounding) and what the CPU kernels keep.
struct CpuProfile {
  plan::Runtime runtime;
  int dropout_mask_bytes = 1;  ///< bytes per element of a saved dropout mask; 0: the dropped tensor's dtype
  bool sdpa_dropout_runs_math = false;  ///< SDPA with dropout falls back to the math path
  bool autocast_softmax_fp32 = true;    ///< autocast runs softmax in fp32 (CUDA's op list; not the CPU's)
};

/// data/runtime-cpu.json (embedded), or an edited copy.
CpuProfile parse_cpu_profile(std::string_view json_text, const std::string& origin);
const CpuProfile& default_cpu_profile();

/// The targets issue 22 sets on the per-phase peaks.
struct CpuTargets {
  double max_median_abs_percent = 5.0;
  double max_p90_abs_percent = 10.0;
  std::int64_t max_under10 = 0;
};

struct CpuPhase {
  std::string name;  ///< "forward" | "backward" | "optimizer"
  std::int64_t measured = 0, planned = 0;
  double error_percent = 0;  ///< > 0: the plan errs safe
};

struct CpuRowResult {
  CpuRow row;
  std::string inexpressible;  ///< what the planner lacks to plan the row; empty: planned
  std::vector<CpuPhase> phases;
  std::int64_t planned_trainable = 0;
};

struct CpuEvaluation {
  std::vector<CpuRowResult> results;
  std::size_t planned = 0, inexpressible = 0;
  std::map<std::string, std::size_t> missing;  ///< inexpressible rows per missing feature
  std::optional<ErrorSummary> phases;          ///< over every planned row's phase peaks
  std::map<std::string, std::optional<ErrorSummary>> per_phase, per_family;
  std::int64_t under10 = 0;  ///< phase peaks under-estimated by more than 10 %
  std::vector<std::string> trainable_mismatches;
  CpuTargets targets;
  bool targets_met() const;
};

/// Plans every row; rows whose config is missing or cannot be built land in `errors`
/// ("file:line: why") and `error_kind` keeps the first one's kind.
CpuEvaluation evaluate_cpu(const std::vector<CpuRow>& rows, const std::filesystem::path& config_root,
                           const CpuProfile& profile, std::vector<std::string>& errors,
                           std::optional<ErrorKind>& error_kind);

/// The report; its last line is `cpu: rows N, planned P, inexpressible I, median X%, p90 Y%, under10 U`.
std::string render_cpu_text(const CpuEvaluation& ev, const std::string& dir, bool per_row);

}  // namespace neurarch::calibration
