#pragma once
// Runs `neurarch-trace validate ARGS...` in-process, as the command line would, for the validate tests.
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.hpp"

namespace neurarch::testing {

struct ValidateRun {
  int code;
  std::string out, err;
};

inline ValidateRun run_validate(std::vector<std::string> args) {
  args.insert(args.begin(), {"neurarch-trace", "validate"});
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  std::istringstream in;
  const int code = neurarch::cli::run(static_cast<int>(argv.size()), argv.data(), out, err, in);
  return {code, out.str(), err.str()};
}

}  // namespace neurarch::testing
