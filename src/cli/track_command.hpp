#pragma once
// `neurarch-trace track REPO` and `neurarch-trace changes ID`: follow a model repository's
// revisions into the change store, and print its history or write its OSV advisories.
#include <iosfwd>

namespace neurarch::cli {

/// argv[1] is "track". Exit codes as elsewhere: 0 done (per-revision problems are reported, not
/// fatal), 2 bad option, 3 not a repository or unknown ref, 5 I/O.
int run_track_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

/// argv[1] is "changes". 3 when the model was never tracked.
int run_changes_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace neurarch::cli
