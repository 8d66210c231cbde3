#pragma once
// `neurarch-trace serve [--host H] [--port P] [--db FILE] ...`: the web server (src/server).
#include <iosfwd>

namespace neurarch::cli {

/// argv[0] is "serve". Blocks until SIGINT or SIGTERM; returns the process exit code.
int run_serve_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace neurarch::cli
