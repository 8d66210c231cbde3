#pragma once
// Which stages a transformers backbone (BackboneMixin: stage_names "stem", "stage1", ...) returns as feature
// maps, read from its config's out_indices or out_features as the reference aligns them.
#include <cstdint>
#include <vector>

#include "core/config.hpp"

namespace neurarch::families {

/// Stage numbers (0 = stem, i = stage i) in stage order, of a backbone with `stages` stages after its stem;
/// `fallback` when the config names none (the reference's default is the last stage). Errors name the key.
std::vector<std::int64_t> backbone_stages(const Config& bc, std::int64_t stages, std::vector<std::int64_t> fallback);

}  // namespace neurarch::families
