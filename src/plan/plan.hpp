#pragma once
// The planner's answer for one model: full fine-tune and LoRA memory at the chosen batch, the
// card table, a two-card split or sharding when one card is not enough, and the run's cost.
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.hpp"
#include "plan/cost.hpp"
#include "plan/fit.hpp"
#include "plan/hardware.hpp"
#include "plan/memory.hpp"
#include "plan/setup.hpp"

namespace neurarch::plan {

struct PlanOptions {
  Setup full;  ///< mode Full
  Setup lora;  ///< mode LoRA or QLoRA
  RunSpec run;
  std::vector<Card> cards;  ///< empty: the catalogue
  Runtime runtime;
  bool runtime_set = false;  ///< false: the embedded data/runtime.json
};

struct CardFit {
  std::string card;
  std::int64_t memory_bytes = 0;
  std::int64_t full_max_batch = 0;
  std::int64_t lora_max_batch = 0;
  std::int64_t usable_bytes = 0;  ///< appended for charts: the most a step may hold on this card (safety margin off)
};

struct FsdpFit {
  std::string card;
  std::optional<std::int64_t> full_cards;
};

struct NodeActivationBytes {
  std::string node;
  std::int64_t full_bytes = 0;  ///< per sample, full fine-tune
  std::int64_t lora_bytes = 0;  ///< per sample, LoRA
  std::vector<SavedTensor> full_saved;  ///< what the full fine-tune keeps, item by item (full_bytes' parts)
};

struct BatchMemory {
  std::int64_t batch = 0;
  std::int64_t full_device_bytes = 0;
  std::int64_t lora_device_bytes = 0;
};

struct Plan {
  Setup full_setup, lora_setup;
  MemoryPlan full, lora;  ///< at the chosen batch (default 1)
  std::vector<CardFit> cards;
  std::optional<PipelineSplit> split;
  Mode split_mode = Mode::Full;
  std::vector<FsdpFit> fsdp;
  std::optional<CostPlan> cost;
  std::vector<NodeActivationBytes> activations;
  std::vector<std::string> notes;
  std::vector<Card> card_catalogue;  ///< what the figures were priced on (with sources)
  /// Appended for the memory-vs-batch chart: device bytes at batch 1, 2, 4, ... past the largest fit.
  std::vector<BatchMemory> batch_curve;
};

/// The card with the least memory whose largest batch in this mode (full fine-tune, else the plan's
/// LoRA/QLoRA) is at least 1; null when none is.
const CardFit* smallest_fit(const Plan& p, bool full);

/// Throws InvalidInput for options that make no sense (batch < 1, rank < 1, ...).
void validate(const PlanOptions& o);
Plan make_plan(const graph::Graph& g, const PlanOptions& o);

}  // namespace neurarch::plan
