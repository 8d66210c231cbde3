#pragma once
// The one constant validate fits: the allocator's fragmentation fraction of data/runtime.json
// (reserved = allocated * (1 + f)). The CUDA context is measured directly and is not fitted.
// The fit is honest for an unseen architecture only when the architecture's own rows played no
// part in it, hence leave-one-family-out.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace neurarch::calibration {

struct FitPoint {
  std::string family;
  double predicted_allocated = 0;  ///< the planner's peak allocated bytes
  double measured_device = 0;      ///< measured max reserved + measured context
  double context = 0;              ///< the planner's CUDA context constant
};

/// The fraction f that minimises the sum of |predicted device - measured| / measured over the
/// points, where predicted device = allocated * (1 + f) + context. Each point's error is
/// (allocated / measured) * |f - f_i| with f_i = (measured - context) / allocated - 1, so the
/// minimiser is the weighted median of the f_i. Clamped to [0, 1]: reserved memory is never below
/// allocated, so a negative fit would hide an over-predicting allocation model rather than model
/// the allocator. nullopt without points.
std::optional<double> fit_fragmentation(const std::vector<FitPoint>& points);

struct HeldOutFit {
  std::string family;          ///< the family left out
  double fraction = 0;         ///< fitted on every other family
  std::size_t trained_on = 0;  ///< how many points the fit saw
};

/// One fit per family, each on the other families' points only, sorted by family. `families`
/// names who is held out (empty: the families of the points; a family with runs on emulated cards
/// only still needs its own held-out fit). A family with no other family's points to fit on gets
/// no entry.
std::vector<HeldOutFit> leave_one_family_out(const std::vector<FitPoint>& points,
                                             const std::vector<std::string>& families = {});

}  // namespace neurarch::calibration
