#pragma once
// `neurarch-trace validate ROWS.json`: the planner against published peak-memory measurements.
#include <iosfwd>
#include <string>
#include <vector>

namespace neurarch::cli {

/// Prints every row, the summary per source and overall, and as its last line
/// "published: rows N, planned P, inexpressible I, median X%, p90 Y%, under10 U, oom_called_fit F".
/// Exit codes: 0 the targets met (inexpressible 0, median <= 5 %, p90 <= 12 %, under10 0,
/// oom_called_fit 0); 1 missed; 2 bad input; 3 not found.
int run_validate_published(const std::string& rows_file, std::vector<std::string> config_dirs,
                           const std::string& runtime_file, std::ostream& out, std::ostream& err);

}  // namespace neurarch::cli
