#pragma once
// A subcommand of neurarch-trace: each command file registers its own on the one CLI11 app (cli.cpp),
// with its flags bound to options it keeps, and says what to run once the command line has parsed.
#include <functional>
#include <iosfwd>

namespace CLI {
class App;
}

namespace neurarch::cli {

struct Command {
  CLI::App* app = nullptr;  ///< the subcommand, owned by the main app
  /// Runs the parsed subcommand; returns the process exit code.
  std::function<int(std::ostream& out, std::ostream& err)> run;
};

}  // namespace neurarch::cli
