#include "plan/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/error.hpp"

namespace neurarch::plan {

namespace {
// Powers of two up to twice the largest batch any card holds (LoRA holds the most), so the chart
// shows every card's crossing; capped so a tiny model does not produce thousands of points.
std::vector<BatchMemory> batch_curve(const MemoryModel& full, const MemoryModel& lora,
                                     const std::vector<std::int64_t>& lora_batches) {
  constexpr std::int64_t kMaxCurveBatch = 4096;
  std::int64_t largest = 1;
  for (auto b : lora_batches) largest = std::max(largest, b);
  std::vector<BatchMemory> curve;
  for (std::int64_t b = 1; b <= std::min(2 * largest, kMaxCurveBatch); b *= 2)
    curve.push_back({b, full.at(b).device_bytes, lora.at(b).device_bytes});
  return curve;
}
}  // namespace

void validate(const PlanOptions& o) {
  for (const Setup* s : {&o.full, &o.lora}) {
    if (s->batch < 1) throw Error(ErrorKind::InvalidInput, "--batch", fmt::format("batch must be at least 1, got {}", s->batch));
    if (s->lora_rank < 1)
      throw Error(ErrorKind::InvalidInput, "--lora-rank", fmt::format("LoRA rank must be at least 1, got {}", s->lora_rank));
    if (s->lora_dropout < 0 || s->lora_dropout >= 1)
      throw Error(ErrorKind::InvalidInput, "--lora-dropout", fmt::format("dropout must be in [0, 1), got {}", s->lora_dropout));
  }
  if (o.run.epochs < 1 || o.run.global_batch < 1 || o.run.samples < 1)
    throw Error(ErrorKind::InvalidInput, "--epochs/--global-batch/--samples", "run sizes must be at least 1");
}

Plan make_plan(const graph::Graph& g, const PlanOptions& o) {
  validate(o);
  if (!g.forward.ok)
    throw Error(ErrorKind::InvalidInput, g.nodes[static_cast<std::size_t>(g.forward.node)].name,
                "cannot plan a model that does not forward-pass: " + g.forward.reason);
  const Runtime& rt = o.runtime_set ? o.runtime : default_runtime();
  Plan p;
  p.card_catalogue = o.cards.empty() ? default_cards() : o.cards;
  p.full_setup = o.full;
  p.lora_setup = o.lora;

  MemoryModel full(g, o.full, rt), lora(g, o.lora, rt);
  p.full = full.at(o.full.batch);
  p.lora = lora.at(o.lora.batch);
  p.notes = lora.activations().notes;
  for (const auto& n : full.activations().notes)
    if (std::find(p.notes.begin(), p.notes.end(), n) == p.notes.end()) p.notes.push_back(n);

  for (const auto& n : g.nodes)
    p.activations.push_back({n.name, full.node_activation_bytes(n.index, 1), lora.node_activation_bytes(n.index, 1),
                             full.activations().nodes[static_cast<std::size_t>(n.index)].saved});

  std::vector<std::int64_t> full_batches, lora_batches;
  const Card* largest = nullptr;
  for (const auto& card : p.card_catalogue) {
    CardFit fit{card.name, card.memory_bytes, max_batch(full, card), max_batch(lora, card), full.usable_bytes(card)};
    full_batches.push_back(fit.full_max_batch);
    lora_batches.push_back(fit.lora_max_batch);
    p.cards.push_back(fit);
    p.fsdp.push_back({card.name, fsdp_cards(full, g, card)});
    if (!largest || card.memory_bytes > largest->memory_bytes) largest = &card;
  }

  // One card cannot hold batch 1: show the two-card pipeline for the first mode that needs it.
  if (!full.fits(*largest, 1)) {
    p.split_mode = lora.fits(*largest, 1) ? Mode::Full : o.lora.mode;
    p.split = two_card_split(p.split_mode == Mode::Full ? full : lora, g, p.card_catalogue);
  }

  bool full_fits_somewhere = false, lora_fits_somewhere = false;
  for (std::size_t i = 0; i < p.cards.size(); ++i) {
    full_fits_somewhere |= full_batches[i] > 0;
    lora_fits_somewhere |= lora_batches[i] > 0;
  }
  for (const auto& card : p.card_catalogue)
    if (!card.bf16_native)
      p.notes.push_back(card.name + " has no bf16 tensor cores: train there with fp16 autocast and a gradient scaler; "
                                    "its memory figures are the same, its time is priced at its fp16 rate");
  if (full_fits_somewhere)
    p.cost = plan_cost(full, g, p.card_catalogue, full_batches, o.run);
  else if (lora_fits_somewhere)
    p.cost = plan_cost(lora, g, p.card_catalogue, lora_batches, o.run);
  p.batch_curve = batch_curve(full, lora, lora_batches);
  return p;
}

const CardFit* smallest_fit(const Plan& p, bool full) {
  const CardFit* best = nullptr;
  for (const auto& c : p.cards) {
    const auto batch = full ? c.full_max_batch : c.lora_max_batch;
    if (batch > 0 && (!best || c.memory_bytes < best->memory_bytes)) best = &c;
  }
  return best;
}

}  // namespace neurarch::plan
