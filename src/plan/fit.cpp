#include "plan/fit.hpp"

#include <algorithm>
#include <map>

namespace neurarch::plan {

std::int64_t max_batch(const MemoryModel& m, const Card& card, std::int64_t cap) {
  if (!m.fits(card, 1)) return 0;
  std::int64_t lo = 1, hi = 2;
  while (hi <= cap && m.fits(card, hi)) {
    lo = hi;
    hi *= 2;
  }
  if (hi > cap) return lo;
  while (hi - lo > 1) {
    std::int64_t mid = lo + (hi - lo) / 2;
    (m.fits(card, mid) ? lo : hi) = mid;
  }
  return lo;
}

namespace {

std::int64_t device_bytes(const MemoryModel& m, std::int64_t allocated) {
  const auto& rt = m.runtime();
  return allocated + static_cast<std::int64_t>(static_cast<double>(allocated) * rt.fragmentation_fraction) +
         rt.cuda_context_bytes;
}

// Memory of one pipeline stage: everything its nodes own plus what their forward keeps, the loss
// buffers if the LM head is among them, and a replica of any weight (and its gradient) that the
// stage uses but the other stage owns (a tied head). Prefix sums make every cut O(1) after O(n).
struct StageCosts {
  std::vector<std::int64_t> prefix;  ///< prefix[i] = bytes of nodes [0, i)
  std::size_t head = SIZE_MAX;       ///< index of the LM head node
  struct Tie {
    std::size_t user, owner;
    std::int64_t bytes;
  };
  std::vector<Tie> ties;
};

StageCosts stage_costs(const MemoryModel& m, const graph::Graph& g) {
  StageCosts c;
  c.prefix.assign(g.nodes.size() + 1, 0);
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const auto& node = g.nodes[i];
    c.prefix[i + 1] = c.prefix[i] + m.node_model_bytes(node.index) + m.node_activation_bytes(node.index, 1);
    if (node.type == graph::NodeType::LMHead) c.head = i;
    for (int t : node.tensors) {
      const auto& spec = g.tensors[static_cast<std::size_t>(t)];
      if (spec.saved()) continue;
      if (const auto* target = g.find_tensor(spec.tied_to))
        c.ties.push_back({i, static_cast<std::size_t>(target->node), target->scalars() * 4 * 2});
    }
  }
  return c;
}

std::int64_t stage_bytes(const MemoryModel& m, const StageCosts& c, std::size_t first, std::size_t last) {
  std::int64_t total = m.runtime().cublas_workspace_bytes + m.in_flight_bytes(1) + c.prefix[last + 1] - c.prefix[first];
  if (c.head >= first && c.head <= last) total += m.logits_peak_bytes(1);
  for (const auto& tie : c.ties)
    if (tie.user >= first && tie.user <= last && (tie.owner < first || tie.owner > last)) total += tie.bytes;
  return device_bytes(m, total);
}

}  // namespace

PipelineSplit two_card_split(const MemoryModel& m, const graph::Graph& g, const std::vector<Card>& cards) {
  PipelineSplit best;
  std::int64_t best_max = -1;
  const std::size_t n = g.nodes.size();
  const StageCosts costs = stage_costs(m, g);
  for (std::size_t cut = 1; cut + 1 < n; ++cut) {
    std::int64_t a = stage_bytes(m, costs, 0, cut - 1), b = stage_bytes(m, costs, cut, n - 1);
    std::int64_t worst = std::max(a, b);
    if (best_max < 0 || worst < best_max) {
      best_max = worst;
      best.cut_after = g.nodes[cut - 1].name;
      best.stages[0] = {g.nodes[0].name, g.nodes[cut - 1].name, a};
      best.stages[1] = {g.nodes[cut].name, g.nodes[n - 1].name, b};
    }
  }
  const Card* smallest = nullptr;
  for (const auto& c : cards)
    if (m.usable_bytes(c) >= best_max && (!smallest || c.memory_bytes < smallest->memory_bytes)) smallest = &c;
  if (smallest) best.fits_on = smallest->name;
  return best;
}

std::optional<std::int64_t> fsdp_cards(const MemoryModel& m, const graph::Graph& g, const Card& card) {
  // FSDP wraps each block; a rank gathers one block's bf16 weights at a time and prefetches the next.
  std::map<int, std::int64_t> unit_params;
  std::int64_t sharded = 0, activations = 0;
  for (const auto& node : g.nodes) {
    sharded += m.node_model_bytes(node.index);
    activations += m.node_activation_bytes(node.index, 1);
    std::int64_t elements = 0;
    for (int t : node.tensors)
      if (g.tensors[static_cast<std::size_t>(t)].saved()) elements += g.tensors[static_cast<std::size_t>(t)].scalars();
    unit_params[node.block >= 0 ? node.block : -1 - node.index] += elements * 2;
  }
  std::int64_t largest_unit = 0;
  for (const auto& [unit, bytes] : unit_params) largest_unit = std::max(largest_unit, bytes);
  const std::int64_t unsharded =
      2 * largest_unit + activations + m.logits_peak_bytes(1) + m.in_flight_bytes(1) + m.runtime().cublas_workspace_bytes;
  if (device_bytes(m, unsharded) > m.usable_bytes(card)) return std::nullopt;
  for (std::int64_t cards = 1; cards <= 4096; ++cards)
    if (device_bytes(m, unsharded + (sharded + cards - 1) / cards) <= m.usable_bytes(card)) return cards;
  return std::nullopt;
}

}  // namespace neurarch::plan
