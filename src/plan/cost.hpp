#pragma once
// Roofline time and dollars of a training run: per node, max(FLOPs / achievable compute,
// bytes moved / achievable bandwidth), forward and backward, summed per optimizer step.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/memory.hpp"

namespace neurarch::plan {

struct RunSpec {
  std::int64_t epochs = 10;
  std::int64_t global_batch = 32;
  std::int64_t samples = 50000;
};

struct NodeCost {
  double flops_forward = 0;   ///< per sample
  double flops_backward = 0;  ///< per sample (weight gradients skipped for frozen weights)
  double weight_bytes = 0;    ///< read once per pass, independent of batch
  double activation_bytes = 0;  ///< read + written per sample and pass
};

struct CardRun {
  std::string card;
  std::int64_t micro_batch = 0;       ///< per forward/backward (gradient accumulation up to the global batch)
  std::int64_t accumulation = 0;
  double step_seconds = 0;            ///< one optimizer step at the global batch
  double hours = 0;
  std::optional<double> usd;
};

struct CostPlan {
  Mode mode = Mode::Full;
  RunSpec run;
  std::int64_t steps = 0;
  double flops = 0;                   ///< the whole run
  std::optional<CardRun> cheapest;    ///< cheapest priced card that fits (else the fastest unpriced one)
  std::vector<CardRun> cards;         ///< every card that fits, fastest first
};

std::vector<NodeCost> node_costs(const graph::Graph& g, const Setup& s);

/// `max_batches[i]` is the largest batch for cards[i] in this mode (0: does not fit).
CostPlan plan_cost(const MemoryModel& m, const graph::Graph& g, const std::vector<Card>& cards,
                   const std::vector<std::int64_t>& max_batches, const RunSpec& run);

}  // namespace neurarch::plan
