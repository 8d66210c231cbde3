#pragma once
// The neurarch-trace command line, callable in-process (tests, benchmarks) as well as from main().
#include <iosfwd>

namespace neurarch::cli {

/// Runs the command; returns the process exit code. Output goes to `out` only once it is complete.
int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err, std::istream& in);

}  // namespace neurarch::cli
