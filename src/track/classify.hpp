#pragma once
// What changed between a revision and its parent, and whether it can break a user pinned to the
// parent. Breaking: a special-token id or role changed or went away, the base vocabulary's ids
// changed, a chat template changed or went away, tensors of the rebuilt graph or of the
// checkpoint were removed, reshaped or re-typed, or the config stopped parsing.
#include <vector>

#include "track/record.hpp"

namespace neurarch::track {

/// `config_baseline` is the latest earlier record whose config.json parsed (often `before`
/// itself): a revision with a broken config.json in between still gets a real config diff.
std::vector<Change> classify(const RevisionRecord& before, const RevisionRecord& after,
                             const RevisionRecord* config_baseline);

}  // namespace neurarch::track
