#pragma once
// Per-stage lists of hierarchical vision configs (depths, hidden_sizes, ...), read as the reference reads
// them: a JSON array of positive integers, or the class default when absent.
#include <cstdint>
#include <string_view>
#include <vector>

#include "core/config.hpp"

namespace neurarch::families {

/// `key` as a list of positive sizes (at most 64 stages); `fallback` when absent. Errors name the key.
std::vector<std::int64_t> size_list(const Config& c, std::string_view key, const std::vector<std::int64_t>& fallback);

/// `key` as a non-empty list of counts that may be 0 (GroupViT's last stage has no group tokens; a
/// time-series model's lags and category cardinalities); `fallback` when absent. Errors name the key.
std::vector<std::int64_t> count_list(const Config& c, std::string_view key, const std::vector<std::int64_t>& fallback);

/// `key` as a list of layer indices (possibly empty; negative entries are the caller's to judge);
/// `fallback` when absent or null. Errors name the key.
std::vector<std::int64_t> index_list(const Config& c, std::string_view key, const std::vector<std::int64_t>& fallback = {});

/// `key` as a list of booleans (per-stage switches: `downsamples`, `stage_light_block`); `fallback` when absent
/// or null. Errors name the key.
std::vector<bool> bool_list(const Config& c, std::string_view key, std::vector<bool> fallback);

/// Throws naming `key` unless `list` has `count` entries (stages described by two lists must agree).
void require_length(const Config& c, std::string_view key, const std::vector<std::int64_t>& list, std::size_t count);

}  // namespace neurarch::families
