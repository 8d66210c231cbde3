#pragma once
// Levenshtein distance, for "did you mean" suggestions: a typed model id, model_type or option value
// against the known ones. Quadratic: callers bound the length of what a user typed.
#include <cstddef>
#include <string_view>

namespace neurarch {

/// Insertions, deletions and substitutions that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace neurarch
