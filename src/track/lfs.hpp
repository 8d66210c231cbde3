#pragma once
// Git LFS pointer files (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md): a few
// "key value" lines, version first, keys sorted, under 1024 bytes.
#include <optional>
#include <string>
#include <string_view>

#include "track/source.hpp"

namespace neurarch::track {

inline constexpr std::size_t kMaxLfsPointerBytes = 1024;

/// True when `text` claims to be a pointer (starts with the spec's version line).
bool looks_like_lfs_pointer(std::string_view text);

/// The pointer's oid and size; throws InvalidInput naming `where` and the offending line when the
/// text claims to be a pointer but breaks the spec.
LfsPointer parse_lfs_pointer(std::string_view text, const std::string& where);

}  // namespace neurarch::track
