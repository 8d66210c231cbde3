#pragma once
// EXAONE 4.0's attention layout (exaone4.cpp), which K-EXAONE's mixture-of-experts model (exaone_moe.cpp) keeps.
#include <cstdint>
#include <vector>

#include "families/llama_common.hpp"

namespace neurarch::families::exaone4 {

/// Each layer's sliding window (0: global) from sliding_window (null: none) with `default_window`, then
/// layer_types or, without it, sliding_window_pattern (an integer, or a string of L and G letters).
std::vector<std::int64_t> windows(const Config& c, std::int64_t layers, std::int64_t default_window);

}  // namespace neurarch::families::exaone4
