#pragma once
// `neurarch-trace MODEL [flags]`, the default command, also spelled `neurarch-trace trace MODEL`: one
// model's report (text, JSON, markdown or the SVG diagram), optionally with the training plan or shared.
#include <iosfwd>

#include "cli/command.hpp"

namespace neurarch::cli {

/// Adds MODEL and the trace's flags to `app` itself, where they apply when no subcommand is named, and
/// registers the `trace` subcommand with the same flags; `run` traces with whichever was given, reading
/// a config from `in` for MODEL "-". Exit codes: 0 done, 2 invalid input or no MODEL, 3 not found,
/// 4 unsupported, 5 I/O, 70 internal error.
Command add_trace_command(CLI::App& app, std::istream& in);

}  // namespace neurarch::cli
