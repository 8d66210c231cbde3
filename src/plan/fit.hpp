#pragma once
// Solvers over the memory timeline: the largest batch per card, a two-card pipeline split, and
// the smallest FSDP / ZeRO-3 group that holds batch 1.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/memory.hpp"

namespace neurarch::plan {

/// Largest batch whose peak fits the card (0: not even batch 1). Memory is monotone in batch,
/// so this doubles then bisects over MemoryModel::at.
std::int64_t max_batch(const MemoryModel& m, const Card& card, std::int64_t cap = 65536);

struct PipelineStage {
  std::string first, last;  ///< node names
  std::int64_t device_bytes = 0;
};

struct PipelineSplit {
  std::string cut_after;  ///< the last node of the first stage
  PipelineStage stages[2];
  std::optional<std::string> fits_on;  ///< smallest catalogue card that holds the larger stage
};

/// The contiguous two-stage cut (batch 1) that minimises the larger stage's memory.
PipelineSplit two_card_split(const MemoryModel& m, const graph::Graph& g, const std::vector<Card>& cards);

/// Smallest number of `card`s that hold batch 1 with parameters, gradients and optimizer state
/// sharded (ZeRO-3 / FSDP full shard); nullopt when unsharded activations alone do not fit.
std::optional<std::int64_t> fsdp_cards(const MemoryModel& m, const graph::Graph& g, const Card& card);

}  // namespace neurarch::plan
