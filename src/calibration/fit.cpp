#include "calibration/fit.hpp"

#include <algorithm>
#include <set>

namespace neurarch::calibration {

std::optional<double> fit_fragmentation(const std::vector<FitPoint>& points) {
  struct Weighted {
    double value, weight;
  };
  std::vector<Weighted> w;
  double total = 0;
  for (const auto& p : points) {
    if (p.predicted_allocated <= 0 || p.measured_device <= 0) continue;
    double weight = p.predicted_allocated / p.measured_device;
    w.push_back({(p.measured_device - p.context) / p.predicted_allocated - 1.0, weight});
    total += weight;
  }
  if (w.empty()) return std::nullopt;
  std::sort(w.begin(), w.end(), [](const Weighted& a, const Weighted& b) { return a.value < b.value; });
  // The lower weighted median: the first value where the cumulative weight reaches half.
  double cumulative = 0;
  double median = w.back().value;
  for (const auto& x : w) {
    cumulative += x.weight;
    if (cumulative >= total / 2) {
      median = x.value;
      break;
    }
  }
  return std::clamp(median, 0.0, 1.0);
}

std::vector<HeldOutFit> leave_one_family_out(const std::vector<FitPoint>& points,
                                             const std::vector<std::string>& held_out) {
  std::set<std::string> families(held_out.begin(), held_out.end());
  if (held_out.empty())
    for (const auto& p : points) families.insert(p.family);
  std::vector<HeldOutFit> fits;
  for (const auto& family : families) {
    std::vector<FitPoint> others;
    for (const auto& p : points)
      if (p.family != family) others.push_back(p);
    if (auto f = fit_fragmentation(others)) fits.push_back({family, *f, others.size()});
  }
  return fits;
}

}  // namespace neurarch::calibration
