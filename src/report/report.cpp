#include "report/report.hpp"

namespace neurarch::report {

std::optional<std::int64_t> Report::delta() const {
  if (!checkpoint) return std::nullopt;
  return derived_scalars() - checkpoint->checkpoint_scalars;
}

std::optional<double> Report::delta_percent() const {
  if (!checkpoint || checkpoint->checkpoint_scalars == 0) return std::nullopt;
  return 100.0 * static_cast<double>(*delta()) / static_cast<double>(checkpoint->checkpoint_scalars);
}

}  // namespace neurarch::report
