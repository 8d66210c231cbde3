#pragma once
// `neurarch-trace serve [--host H] [--port P] [--db FILE] ...`: the web server (src/server).
#include "cli/command.hpp"

namespace neurarch::cli {

/// Registers `serve` on `app`. Running it blocks until SIGINT or SIGTERM; exit 0 after a clean stop,
/// 2 on a bad option, 5 when the address or the database cannot be opened.
Command add_serve_command(CLI::App& app);

}  // namespace neurarch::cli
