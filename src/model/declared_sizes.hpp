#pragma once
// Bounds what building and planning a config would create, from the config's numbers alone, before
// anything is built: a config that declares 10^8 layers is refused in microseconds, not after 14 GB.
// The check is generic: it reads keys by what their names mean (layer counts, expert counts, widths,
// heads, positions, image sizes), not family by family. graph::BuildBudget backs it up inside the
// builder for whatever it misjudges. docs/hostile-input.md lists the limits.
#include <cstdint>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch::model {

/// Upper estimates, each from the config's numbers and the build options.
struct DeclaredSizes {
  double layers = 0;       ///< all stacks of all sub-models, plus every list a stage or a layer could be made from
  double per_layer = 0;    ///< the largest per-layer multiplier (experts, parallel feed-forwards)
  double units = 0;        ///< nodes or tensors: layers x (16 + 3 x per_layer)
  double tokens = 0;       ///< positions a sample's attention runs over (sequence, patches, frames)
  double width = 0;        ///< the widest size (hidden, intermediate, vocabulary)
  double heads = 0;
  double activations = 0;  ///< batch x layers x (max(tokens, pixels) x width + heads x tokens^2)
};

/// Walks the config once (time and memory proportional to it). Throws InvalidInput naming the key and
/// the limit when a declared count or an estimate is past its limit (core/limits.hpp).
DeclaredSizes check_declared_sizes(const Config& config, const BuildOptions& options, std::int64_t batch = 1);

}  // namespace neurarch::model
