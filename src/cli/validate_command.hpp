#pragma once
// `neurarch-trace validate DIR`: the planner against every measured run in DIR's CSV files.
#include "cli/command.hpp"

namespace neurarch::cli {

/// Exit codes: 0 every target of issue 8 met (targets with no rows yet count as met); 1 a target
/// missed; 2 bad input (a bad CSV row, a bad option, a row the planner refuses); 3 DIR or a row's
/// config not found; 4 a row's model type is unsupported; 5 I/O; 6 DIR holds no measured row to
/// compare (nothing was measured yet). Registers `validate` on `app`.
Command add_validate_command(CLI::App& app);

inline constexpr int kValidateNoRowsExit = 6;

}  // namespace neurarch::cli
