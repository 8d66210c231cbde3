#pragma once
// `neurarch-trace track REPO` and `neurarch-trace changes ID`: follow a model repository's
// revisions into the change store, and print its history or write its OSV advisories.
#include "cli/command.hpp"

namespace neurarch::cli {

/// Registers `track` on `app`. Exit codes as elsewhere: 0 done (per-revision problems are reported,
/// not fatal), 2 bad option, 3 not a repository or unknown ref, 5 I/O.
Command add_track_command(CLI::App& app);

/// Registers `changes` on `app`; 3 when the model was never tracked.
Command add_changes_command(CLI::App& app);

}  // namespace neurarch::cli
