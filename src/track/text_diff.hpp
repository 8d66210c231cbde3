#pragma once
// A line-based unified diff (as `diff -u` prints it) for the texts users read, chat templates.
#include <cstddef>
#include <string>

namespace neurarch::track {

/// Hunks with `context` lines around each change, headed "--- a/<name>" "+++ b/<name>". Texts
/// longer than `max_lines` lines on either side are summarised instead: the diff's memory is
/// quadratic in lines, and a template that long is no longer read line by line.
std::string unified_diff(const std::string& before, const std::string& after, const std::string& name,
                         std::size_t context = 3, std::size_t max_lines = 2000);

}  // namespace neurarch::track
