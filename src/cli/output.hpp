#pragma once
// The exit codes every subcommand documents: a failure reads the same from any of them.
#include "core/error.hpp"

namespace neurarch::cli {

/// 2 invalid input, 3 not found, 4 unsupported, 5 I/O (the README's table).
int exit_code(ErrorKind kind);

}  // namespace neurarch::cli
