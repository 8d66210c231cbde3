#include "calibration/statistics.hpp"

#include <algorithm>
#include <cmath>

namespace neurarch::calibration {

std::optional<double> percentile(std::vector<double> values, double p) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(rank));
  const auto above = std::min(below + 1, values.size() - 1);
  const double weight = rank - static_cast<double>(below);
  return values[below] + (values[above] - values[below]) * weight;
}

double percent_error(double predicted, double measured) { return 100.0 * (predicted - measured) / measured; }

std::optional<ErrorSummary> summarize(const std::vector<double>& signed_percent_errors) {
  if (signed_percent_errors.empty()) return std::nullopt;
  std::vector<double> abs;
  abs.reserve(signed_percent_errors.size());
  for (double e : signed_percent_errors) abs.push_back(std::fabs(e));
  ErrorSummary s;
  s.count = signed_percent_errors.size();
  s.median_abs_percent = *percentile(abs, 50);
  s.p90_abs_percent = *percentile(abs, 90);
  s.median_signed_percent = *percentile(signed_percent_errors, 50);
  s.max_abs_percent = *std::max_element(abs.begin(), abs.end());
  return s;
}

void Confusion::add(bool measured_fits, bool predicted_fits) {
  if (measured_fits)
    ++(predicted_fits ? fit_called_fits : fit_called_oom);
  else
    ++(predicted_fits ? oom_called_fits : oom_called_oom);
}

double Confusion::refused_fitting_percent() const {
  return measured_fit() == 0 ? 0.0 : 100.0 * static_cast<double>(fit_called_oom) / static_cast<double>(measured_fit());
}

}  // namespace neurarch::calibration
