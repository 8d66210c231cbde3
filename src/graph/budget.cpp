#include "graph/budget.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace neurarch::graph {
namespace {
const BuildBudget kDefault{};
thread_local const BuildBudget* t_budget = &kDefault;
}  // namespace

const BuildBudget& current_budget() { return *t_budget; }

BudgetScope::BudgetScope(const BuildBudget& budget) : previous_(t_budget), budget_(budget) { t_budget = &budget_; }

BudgetScope::~BudgetScope() { t_budget = previous_; }

void check_deadline(const char* stage) {
  const auto& deadline = t_budget->deadline;
  if (deadline && std::chrono::steady_clock::now() > *deadline)
    throw Error(ErrorKind::InvalidInput, "config", fmt::format("{} is over this request's time budget", stage));
}

}  // namespace neurarch::graph
