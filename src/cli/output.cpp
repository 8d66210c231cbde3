#include "cli/output.hpp"

namespace neurarch::cli {

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidInput: return 2;
    case ErrorKind::NotFound: return 3;
    case ErrorKind::Unsupported: return 4;
    case ErrorKind::Io: return 5;
  }
  return 1;
}

}  // namespace neurarch::cli
