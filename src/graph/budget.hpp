#pragma once
// What one build may create. GraphBuilder enforces the budget of its thread as it adds nodes and
// tensors, so a config whose declared sizes were misjudged still stops after bounded time and memory.
// The default is limits::kMaxNodes / kMaxTensors and no deadline; the server narrows it per request.
#include <chrono>
#include <cstdint>
#include <optional>

#include "core/limits.hpp"

namespace neurarch::graph {

struct BuildBudget {
  std::int64_t max_nodes = limits::kMaxNodes;
  std::int64_t max_tensors = limits::kMaxTensors;
  /// Building past this instant fails with "over the time budget"; nullopt: no time limit.
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

/// The budget in force on this thread.
const BuildBudget& current_budget();

/// Puts `budget` in force on this thread while it lives (nests; restores the previous one).
class BudgetScope {
 public:
  explicit BudgetScope(const BuildBudget& budget);
  ~BudgetScope();
  BudgetScope(const BudgetScope&) = delete;
  BudgetScope& operator=(const BudgetScope&) = delete;

 private:
  const BuildBudget* previous_;
  BuildBudget budget_;
};

/// Throws InvalidInput naming the budget when the clock is past the thread's deadline.
void check_deadline(const char* stage);

}  // namespace neurarch::graph
