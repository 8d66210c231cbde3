#include <fmt/format.h>

#include "render/plan_render.hpp"
#include "render/render.hpp"

namespace neurarch::render {
namespace {

std::string batch_text(std::int64_t b) { return b == 0 ? "does not fit" : std::to_string(b); }

std::string memory_section(const plan::MemoryPlan& m, const std::string& title, bool md) {
  std::string out = md ? fmt::format("\n### {}\n\n", title) : fmt::format("\n{}\n", title);
  out += fmt::format("{}Batch {}: {} on the card (peak allocated {}, reserved {}); peak in {}{}\n", md ? "" : "  ",
                     m.batch, gib(m.device_bytes), gib(m.peak_allocated), gib(m.reserved), m.peak_phase,
                     m.peak_at.empty() ? "" : " at " + m.peak_at);
  if (md) out += "\n| Term | Bytes | GiB |\n|---|---:|---:|\n";
  for (const auto& t : m.breakdown) {
    if (md)
      out += fmt::format("| {} | {} | {} |\n", t.name, thousands(t.bytes), gib(t.bytes));
    else
      out += fmt::format("    {:<26} {:>20}  {:>11}\n", t.name, thousands(t.bytes), gib(t.bytes));
  }
  return out;
}

}  // namespace

std::string gib(std::int64_t bytes) { return fmt::format("{:.2f} GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024)); }

std::string plan_text(const plan::Plan& p, bool md) {
  std::string out = md ? "\n## Training plan\n" : "\nTraining plan\n";
  const auto& f = p.full_setup;
  const std::string full_title =
      f.precision == plan::Precision::AmpBf16 && f.optimizer == plan::Optimizer::AdamW
          ? std::string("Full fine-tune (fp32 weights, AdamW, bf16 autocast)")
          : fmt::format("Full fine-tune (precision {}, optimizer {})", plan::precision_name(f.precision),
                        plan::optimizer_name(f.optimizer));
  out += memory_section(p.full, full_title, md);
  out += memory_section(p.lora,
                        fmt::format("{} r={} on a {} base", plan::mode_label(p.lora.mode),
                                    p.lora_setup.lora_rank, p.lora.mode == plan::Mode::QLoRA ? "4-bit NF4" : "bf16"),
                        md);

  out += md ? "\n### Largest batch per card\n\n| Card | Memory | Full FT | LoRA | FSDP cards (full, batch 1) |\n|---|---:|---:|---:|---:|\n"
            : "\nLargest batch per card (0 = does not fit batch 1)\n";
  for (std::size_t i = 0; i < p.cards.size(); ++i) {
    const auto& c = p.cards[i];
    std::string fsdp = p.fsdp[i].full_cards ? std::to_string(*p.fsdp[i].full_cards) : "no";
    if (md)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", c.card, gib(c.memory_bytes), batch_text(c.full_max_batch),
                         batch_text(c.lora_max_batch), fsdp);
    else
      out += fmt::format("  {:<10} {:>10}  full {:>12}  lora {:>12}  fsdp cards {}\n", c.card, gib(c.memory_bytes),
                         batch_text(c.full_max_batch), batch_text(c.lora_max_batch), fsdp);
  }

  if (p.split) {
    const auto& s = *p.split;
    out += md ? "\n### Two-card pipeline split\n\n" : "\nTwo-card pipeline split\n";
    out += fmt::format("{}{} at batch 1, cut after {}: card 1 holds {}..{} ({}), card 2 holds {}..{} ({}); {}\n",
                       md ? "" : "  ", plan::mode_name(p.split_mode), s.cut_after, s.stages[0].first, s.stages[0].last,
                       gib(s.stages[0].device_bytes), s.stages[1].first, s.stages[1].last, gib(s.stages[1].device_bytes),
                       s.fits_on ? "each stage fits a " + *s.fits_on : "no card in the catalogue holds the larger stage");
  }

  if (p.cost && p.cost->cheapest) {
    const auto& c = *p.cost;
    const auto& best = *c.cheapest;
    out += md ? "\n### Cost of the run\n\n" : "\nCost of the run\n";
    out += fmt::format("{}{} fine-tune, {} epochs x {} samples at global batch {} ({} steps, {:.3g} FLOPs): cheapest {} — "
                       "{:.2f} h{}\n",
                       md ? "" : "  ", plan::mode_name(c.mode), c.run.epochs, c.run.samples, c.run.global_batch, c.steps,
                       c.flops, best.card, best.hours, best.usd ? fmt::format(", ${:.2f}", *best.usd) : ", no price known");
    if (md) out += "\n| Card | Micro-batch | Hours | USD |\n|---|---:|---:|---:|\n";
    for (const auto& r : c.cards) {
      std::string usd = r.usd ? fmt::format("{:.2f}", *r.usd) : "—";
      if (md)
        out += fmt::format("| {} | {} x {} | {:.2f} | {} |\n", r.card, r.micro_batch, r.accumulation, r.hours, usd);
      else
        out += fmt::format("    {:<10} micro-batch {:>4} x {:<3} {:>9.2f} h  ${}\n", r.card, r.micro_batch, r.accumulation,
                           r.hours, usd);
    }
  }
  for (const auto& n : p.notes) out += (md ? "\n- " : "  Note: ") + n + (md ? "" : "\n");
  if (md && !p.notes.empty()) out += "\n";
  return out;
}

}  // namespace neurarch::render
