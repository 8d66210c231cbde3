#pragma once
// The planner against measured fine-tuning runs: every row of every CSV in a folder is planned
// with pipeline::trace + plan::make_plan (the same code `neurarch-trace --plan` runs) and compared
// with what the GPU reported.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "calibration/fit.hpp"
#include "calibration/measured_row.hpp"
#include "calibration/statistics.hpp"
#include "core/error.hpp"
#include "plan/hardware.hpp"

namespace neurarch::calibration {

/// The acceptance figures (issue 8): they judge the planner, they model no hardware.
struct Targets {
  std::int64_t max_oom_called_fits = 0;
  double max_refused_fitting_percent = 3.0;
  double max_median_abs_percent = 2.0;
  double max_p90_abs_percent = 5.0;
};

struct MeasuredSet {
  std::size_t files = 0;  ///< CSV files read
  std::vector<MeasuredRow> rows;
  std::vector<std::string> errors;  ///< one line each, "file:line:column: why"
};

/// Reads every *.csv directly in `dir` (sorted by name). Throws NotFound when `dir` is not a
/// folder and Io when a file cannot be read; bad rows land in `errors`.
MeasuredSet load_measured(const std::filesystem::path& dir);

struct RowResult {
  MeasuredRow row;
  std::int64_t predicted_allocated = 0;
  std::int64_t predicted_reserved = 0;
  std::int64_t predicted_device = 0;  ///< reserved + the runtime's CUDA context
  std::string predicted_peak_phase;
  std::int64_t predicted_trainable = 0;
  std::int64_t predicted_max_batch = 0;  ///< on the row's card (emulated or whole device)
  bool peak_row = false;                 ///< an 'ok' run on the whole device: its peak is compared
  bool sweep_row = false;                ///< an 'ok' or 'oom' run on an emulated card: its fit is compared
  double error_percent = 0;              ///< device bytes, planner vs measured (peak rows)
  double allocated_error_percent = 0;    ///< planner peak allocated vs max_memory_allocated (peak rows)
  std::optional<double> held_out_error_percent;
  std::optional<bool> held_out_predicted_fits;
};

struct FamilySummary {
  std::string family;
  std::size_t rows = 0;  ///< every row of the family that was compared
  std::optional<ErrorSummary> device, allocated, held_out;
  Confusion confusion;
};

struct TargetCheck {
  std::string name;
  std::string figure;  ///< "shipped" (data/runtime.json as is) or "held-out" (leave-one-family-out)
  std::optional<double> value;  ///< nullopt: no rows measure it yet
  double limit = 0;
  bool met() const { return !value || *value <= limit; }
};

struct Evaluation {
  std::size_t files = 0, rows = 0, ok = 0, oom = 0, errored = 0;
  std::vector<RowResult> results;  ///< rows compared (status ok or oom), in file order
  std::vector<FamilySummary> families;
  std::optional<ErrorSummary> overall, overall_allocated, overall_held_out;
  Confusion confusion, held_out_confusion;
  std::size_t phase_rows = 0, phase_agree = 0;  ///< peak rows that name a measured peak phase
  std::vector<std::string> trainable_mismatches;  ///< "file:line: measured N, planned M"

  double runtime_fragmentation = 0;
  std::int64_t runtime_context_bytes = 0;
  std::optional<double> measured_context_median_bytes;
  std::optional<double> fitted_fragmentation;  ///< on every family: the value data/runtime.json could take
  std::vector<HeldOutFit> held_out_fits;
  std::vector<std::string> environments;  ///< distinct "gpu; torch; transformers; peft" seen

  std::vector<TargetCheck> targets;
  bool targets_met() const;
  /// Peak rows, worst |error| first, at most `n`.
  std::vector<const RowResult*> worst(std::size_t n) const;
};

struct EvaluateOptions {
  std::filesystem::path config_root;  ///< rows' config paths are relative to it
  plan::Runtime runtime;              ///< the planner's constants (data/runtime.json unless --runtime)
  Targets targets;
};

/// Plans every row and compares. Rows whose config is missing or cannot be planned are reported
/// in `errors` ("file:line:column: why") and left out; `error_kind` is the first such error's kind.
Evaluation evaluate(const std::vector<MeasuredRow>& rows, const EvaluateOptions& options,
                    std::vector<std::string>& errors, std::optional<ErrorKind>& error_kind);

}  // namespace neurarch::calibration
