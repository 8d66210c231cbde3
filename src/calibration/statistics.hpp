#pragma once
// Summary statistics of the planner's error against measurements.
#include <cstdint>
#include <optional>
#include <vector>

namespace neurarch::calibration {

/// The p-th percentile (0..100) by linear interpolation between the closest ranks (NumPy's
/// default, so a reader can reproduce it): rank = p/100 * (n - 1). nullopt for no values.
std::optional<double> percentile(std::vector<double> values, double p);

struct ErrorSummary {
  std::size_t count = 0;
  double median_abs_percent = 0;    ///< median of |error|
  double p90_abs_percent = 0;       ///< 90th percentile of |error|
  double median_signed_percent = 0; ///< > 0: the planner over-predicts (errs safe)
  double max_abs_percent = 0;
};

/// Error in percent of the measured value: 100 * (predicted - measured) / measured.
double percent_error(double predicted, double measured);

/// Summary of signed percentage errors; nullopt for none.
std::optional<ErrorSummary> summarize(const std::vector<double>& signed_percent_errors);

/// Fits-or-not over runs on emulated cards. "Fits" means the run did not go out of memory.
struct Confusion {
  std::int64_t oom_called_fits = 0;  ///< measured OOM, predicted to fit: the count that must be 0
  std::int64_t oom_called_oom = 0;
  std::int64_t fit_called_fits = 0;
  std::int64_t fit_called_oom = 0;  ///< a fitting job the planner would have refused

  void add(bool measured_fits, bool predicted_fits);
  std::int64_t total() const { return oom_called_fits + oom_called_oom + fit_called_fits + fit_called_oom; }
  std::int64_t measured_fit() const { return fit_called_fits + fit_called_oom; }
  std::int64_t measured_oom() const { return oom_called_fits + oom_called_oom; }
  /// fit_called_oom / measured_fit in percent; 0 when nothing fitted.
  double refused_fitting_percent() const;
};

}  // namespace neurarch::calibration
