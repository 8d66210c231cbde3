#include <algorithm>

#include <fmt/format.h>

#include "core/embedded_assets.hpp"
#include "render/html_parts.hpp"
#include "render/plan_render.hpp"
#include "render/render.hpp"
#include "render/summary.hpp"

namespace neurarch::render {
namespace {
using html_parts::bytes_text;

// Longer structure tables start folded: a 32-layer decoder is ~200 rows.
constexpr std::size_t kOpenStructureRows = 40;

std::string e(std::string_view s) { return html_escape(s); }

// One headline tile; data-figure/data-value let scripts and tests read the exact number.
std::string tile(std::string_view figure, std::string_view label, const std::string& value_html,
                 const std::string& raw_value, const std::string& detail_html = {}, std::string_view tone = {}) {
  return fmt::format(
      "<div class=\"tile{}\"><dt>{}</dt><dd data-figure=\"{}\" data-value=\"{}\">{}</dd>{}</div>",
      tone.empty() ? "" : fmt::format(" {}", tone), e(label), e(figure), e(raw_value), value_html,
      detail_html.empty() ? "" : "<dd class=\"detail\">" + detail_html + "</dd>");
}

std::string headline(const report::Report& r) {
  const auto& g = r.graph;
  std::string out = "<dl class=\"headline\">";
  std::string params_detail;
  std::string tone;
  if (r.checkpoint) {
    const auto pct = r.delta_percent();
    params_detail = fmt::format("checkpoint <span data-figure=\"parameters-checkpoint\" data-value=\"{}\">{}</span> · delta "
                                "<span data-figure=\"parameters-delta\" data-value=\"{}\">{}</span>{}",
                                r.checkpoint->checkpoint_scalars, thousands(r.checkpoint->checkpoint_scalars), *r.delta(),
                                thousands(*r.delta()), pct ? fmt::format(" ({:+.3f}%)", *pct) : "");
    tone = *r.delta() == 0 ? "good" : "warn";
  } else {
    params_detail = "derived from config.json; no checkpoint read";
  }
  out += tile("parameters-derived", "Parameters", thousands(r.derived_scalars()), std::to_string(r.derived_scalars()),
              params_detail, tone);
  if (r.plan) {
    for (const auto* m : {&r.plan->full, &r.plan->lora}) {
      const bool full = m == &r.plan->full;
      const auto* fit = plan::smallest_fit(*r.plan, full);
      out += tile(full ? "full-device-bytes" : "lora-device-bytes", fmt::format("{}, batch {}", plan::mode_label(m->mode), m->batch),
                  bytes_text(m->device_bytes), std::to_string(m->device_bytes),
                  fit ? "smallest card that fits: <strong>" + e(fit->card) + "</strong>"
                      : std::string("no single card fits batch 1"),
                  fit ? "" : "bad");
    }
  }
  out += tile("forward-pass", "Will it forward-pass", g.forward.ok ? "Yes" : "No", g.forward.ok ? "true" : "false",
              g.forward.ok ? std::string()
                           : e(g.nodes[static_cast<std::size_t>(g.forward.node)].name) + ": " + e(g.forward.reason),
              g.forward.ok ? "good" : "bad");
  out += tile("layers", "Layers", std::to_string(g.layer_count()), std::to_string(g.layer_count()),
              fmt::format("{} tensors", g.tensors.size()));
  if (r.plan && r.plan->cost && r.plan->cost->cheapest) {
    const auto& c = *r.plan->cost;
    const auto& best = *c.cheapest;
    out += tile("cheapest-card", "Cheapest card for the run", e(best.card), best.card,
                fmt::format("{} fine-tune, {} epochs × {} samples: <span data-figure=\"run-hours\" data-value=\"{:.4f}\">{:.1f} h</span>{}",
                            plan::mode_name(c.mode), c.run.epochs, thousands(c.run.samples), best.hours, best.hours,
                            best.usd ? fmt::format(" · <span data-figure=\"run-usd\" data-value=\"{:.2f}\">${:.2f}</span>",
                                                   *best.usd, *best.usd)
                                     : std::string(" · no price known")));
  }
  return out + "</dl>";
}

std::string card_table(const plan::Plan& p) {
  std::string out =
      "<table class=\"sortable cards\"><thead><tr><th>Card</th><th class=\"num\">Memory</th><th class=\"num\">Full FT "
      "max batch</th><th class=\"num\">LoRA max batch</th><th class=\"num\">FSDP cards (full)</th><th "
      "class=\"num\">$/hour</th><th class=\"num\">Run hours</th><th class=\"num\">Run cost</th></tr></thead><tbody>";
  const std::string cheapest = p.cost && p.cost->cheapest ? p.cost->cheapest->card : "";
  for (std::size_t i = 0; i < p.cards.size(); ++i) {
    const auto& c = p.cards[i];
    const plan::Card* spec = nullptr;
    for (const auto& k : p.card_catalogue)
      if (k.name == c.card) spec = &k;
    const plan::CardRun* run = nullptr;
    if (p.cost)
      for (const auto& r : p.cost->cards)
        if (r.card == c.card) run = &r;
    auto batch_cell = [](std::int64_t b) {
      return b == 0 ? std::string("<td class=\"num no\" data-sort=\"0\">does not fit</td>")
                    : fmt::format("<td class=\"num\" data-sort=\"{}\">{}</td>", b, b);
    };
    out += fmt::format("<tr{}><td>{}</td><td class=\"num\" data-sort=\"{}\">{}</td>{}{}", c.card == cheapest ? " class=\"best\"" : "",
                       e(c.card), c.memory_bytes, bytes_text(c.memory_bytes), batch_cell(c.full_max_batch),
                       batch_cell(c.lora_max_batch));
    out += p.fsdp[i].full_cards ? fmt::format("<td class=\"num\" data-sort=\"{0}\">{0}</td>", *p.fsdp[i].full_cards)
                                : "<td class=\"num no\" data-sort=\"999999\">no</td>";
    out += spec && spec->usd_per_hour ? fmt::format("<td class=\"num\" data-sort=\"{0}\">{0:.2f}</td>", *spec->usd_per_hour)
                                      : "<td class=\"num\" data-sort=\"999999\">—</td>";
    if (run)
      out += fmt::format("<td class=\"num\" data-sort=\"{0}\">{0:.2f}</td><td class=\"num\" data-sort=\"{1}\">{2}</td>",
                         run->hours, run->usd ? *run->usd : 1e12, run->usd ? fmt::format("${:.2f}", *run->usd) : "—");
    else
      out += "<td class=\"num no\" data-sort=\"1e12\">—</td><td class=\"num no\" data-sort=\"1e12\">—</td>";
    out += "</tr>";
  }
  out += "</tbody></table>";
  if (p.cost && p.cost->cheapest)
    out += fmt::format(
        "<p class=\"caption\">Run: {} fine-tune, {} epochs × {} samples at global batch {} ({} steps, {:.3g} FLOPs); "
        "roofline time with gradient accumulation up to the global batch. Highlighted: the cheapest priced card.</p>",
        plan::mode_name(p.cost->mode), p.cost->run.epochs, thousands(p.cost->run.samples), p.cost->run.global_batch,
        thousands(p.cost->steps), p.cost->flops);
  return out;
}

std::string memory_terms(const plan::MemoryPlan& m) {
  std::string out = fmt::format(
      "<table class=\"terms\"><caption>{}, batch {}: {} on the card, peak in {}{}</caption><tbody>",
      plan::mode_label(m.mode), m.batch, bytes_text(m.device_bytes), e(m.peak_phase),
      m.peak_at.empty() ? "" : " at " + e(m.peak_at));
  for (const auto& t : m.breakdown)
    out += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td></tr>", e(t.name), bytes_text(t.bytes));
  return out + "</tbody></table>";
}

std::string split_section(const plan::Plan& p) {
  if (!p.split) return {};
  const auto& s = *p.split;
  return fmt::format(
      "<p class=\"split\"><strong>Two-card pipeline split</strong> ({} at batch 1), cut after <code>{}</code>: card 1 "
      "holds {}…{} ({}), card 2 holds {}…{} ({}); {}.</p>",
      plan::mode_name(p.split_mode), e(s.cut_after), e(s.stages[0].first), e(s.stages[0].last),
      bytes_text(s.stages[0].device_bytes), e(s.stages[1].first), e(s.stages[1].last), bytes_text(s.stages[1].device_bytes),
      s.fits_on ? "each stage fits a " + e(*s.fits_on) : std::string("no card in the catalogue holds the larger stage"));
}

std::string structure_table(const report::Report& r) {
  const auto& g = r.graph;
  std::string out = fmt::format(
      "<details class=\"structure\" id=\"structure\"{}><summary>Structure: {} layers, input {} {}</summary>"
      "<table class=\"sortable\"><thead><tr><th class=\"num\">#</th><th>Layer</th><th>Type</th><th>Output "
      "shape</th><th class=\"num\">Parameters</th><th>Module</th></tr></thead><tbody>",
      g.nodes.size() <= kOpenStructureRows ? " open" : "", g.layer_count(), e(g.input_kind), e(shape_text(g.input_shape)));
  for (const auto& n : g.nodes) {
    const auto scalars = g.node_scalars(n.index);
    out += fmt::format(
        "<tr><td class=\"num\" data-sort=\"{0}\">{0}</td><td>{1}</td><td>{2}</td><td>{3}</td><td class=\"num\" "
        "data-sort=\"{4}\">{5}</td><td><code>{6}</code></td></tr>",
        n.index, e(n.name), e(graph::node_type_name(n.type)), e(shape_text(n.out)), scalars, thousands(scalars), e(n.path));
  }
  return out + "</tbody></table></details>";
}

std::string findings_section(const report::Report& r) {
  std::string out = "<section id=\"findings\"><h2>What the verifier says</h2>";
  if (r.findings.empty()) return out + "<p>Nothing to report.</p></section>";
  out += "<table><thead><tr><th>Severity</th><th>Rule</th><th>Where</th><th>Finding</th><th>Fix</th></tr></thead><tbody>";
  for (const auto& f : r.findings)
    out += fmt::format("<tr class=\"sev-{0}\"><td><span class=\"badge sev-{0}\">{0}</span></td><td><code>{1}</code></td><td>{2}</td><td>{3}</td><td>{4}</td></tr>",
                       e(f.severity), e(f.rule), e(f.node), e(f.message), e(f.fix));
  return out + "</tbody></table></section>";
}

std::string checkpoint_section(const report::Report& r) {
  if (!r.checkpoint || r.checkpoint->exact()) return {};
  const auto& c = *r.checkpoint;
  std::string out =
      "<section id=\"checkpoint\"><h2>Checkpoint differences</h2><table><thead><tr><th>Tensor</th><th>Ours</th><th>"
      "Checkpoint</th><th>Note</th></tr></thead><tbody>";
  for (const auto& t : c.missing)
    out += fmt::format("<tr><td><code>{}</code></td><td>{} {}</td><td>—</td><td>missing in checkpoint</td></tr>", e(t.name),
                       e(shape_text(t.shape)), dtype_name(t.dtype));
  for (const auto& u : c.unexpected)
    out += fmt::format("<tr><td><code>{}</code></td><td>—</td><td>{} {}</td><td>{}</td></tr>", e(u.tensor.name),
                       e(shape_text(u.tensor.shape)), dtype_name(u.tensor.dtype),
                       u.explanation.empty() ? "only in checkpoint" : e(u.explanation));
  for (const auto& m : c.mismatched)
    out += fmt::format("<tr><td><code>{}</code></td><td>{} {}</td><td>{} {}</td><td>{} differs</td></tr>", e(m.name),
                       e(shape_text(m.ours.shape)), dtype_name(m.ours.dtype), e(shape_text(m.checkpoint.shape)),
                       dtype_name(m.checkpoint.dtype), e(m.reason));
  return out + "</tbody></table></section>";
}

std::string changes_section(const std::vector<ChangeRow>& rows) {
  std::string out = "<section id=\"changes\"><h2>Change history</h2>";
  if (rows.empty()) return out + "<p>No change recorded yet.</p></section>";
  out += "<table><thead><tr><th>Date</th><th>Revision</th><th>What changed</th></tr></thead><tbody>";
  for (const auto& c : rows)
    out += fmt::format("<tr><td>{}</td><td><code>{}</code></td><td>{}</td></tr>", e(c.date), e(c.revision.substr(0, 12)),
                       e(c.summary));
  return out + "</tbody></table></section>";
}

std::string notes_section(const report::Report& r) {
  std::vector<std::string> notes = r.graph.notes;
  notes.insert(notes.end(), r.notes.begin(), r.notes.end());
  if (r.checkpoint)
    for (const auto& n : r.checkpoint->notes) notes.push_back("Checkpoint: " + n);
  if (r.plan) notes.insert(notes.end(), r.plan->notes.begin(), r.plan->notes.end());
  if (notes.empty()) return {};
  std::string out = "<section id=\"notes\"><h2>Notes</h2><ul>";
  for (const auto& n : notes) out += "<li>" + e(n) + "</li>";
  return out + "</ul></section>";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string_view html_stylesheet() { return embedded_asset("html.css"); }

std::string html(const report::Report& r, const HtmlOptions& options) {
  std::string out = "<article class=\"neurarch\">";
  out += fmt::format(
      "<header><h1>{}</h1><p class=\"meta\"><code>{}</code> · <code>{}</code> · from {}{}</p></header>", e(r.model.id),
      e(r.model.model_type), e(r.model.class_name), e(r.model.source),
      r.model.revision.empty() ? "" : fmt::format(" @ <code>{}</code>", e(r.model.revision.substr(0, 12))));
  out += headline(r);
  if (!options.command.empty())
    out += fmt::format(
        "<div class=\"command\"><code id=\"command\">{}</code><button type=\"button\" class=\"copy\" "
        "data-copy=\"command\" hidden>Copy</button></div>",
        e(options.command));
  if (r.plan) {
    const auto& p = *r.plan;
    out += "<section id=\"cards\"><h2>Which card</h2>" + card_table(p) + split_section(p) + "</section>";
    out += "<section id=\"memory\"><h2>Memory</h2><figure>" + html_parts::phase_chart_svg(p) +
           "<figcaption>One training step on one GPU: what is allocated at the end of the forward pass, at the "
           "backward peak and during the optimizer step.</figcaption></figure>";
    if (auto curve = html_parts::batch_chart_svg(p); !curve.empty())
      out += "<figure>" + curve +
             "<figcaption>Memory the card must hold against batch size; a card fits where the line is under its "
             "limit (usable memory after the safety margin).</figcaption></figure>";
    out += "<div class=\"terms-pair\">" + memory_terms(p.full) + memory_terms(p.lora) + "</div></section>";
  }
  out += "<section id=\"see-it\"><h2>See it</h2><figure class=\"diagram-figure\">" + diagram(r) +
         "<figcaption>The graph rebuilt from the config: each repeated layer drawn once with its count; with a plan, "
         "the colour is the activation memory a node keeps for backward and ◆ marks where the step peaks."
         "</figcaption></figure></section>";
  out += "<section id=\"structure-section\"><h2>Structure</h2>" + structure_table(r) + "</section>";
  out += findings_section(r);
  out += checkpoint_section(r);
  if (options.changes) out += changes_section(*options.changes);
  out += notes_section(r);
  return out + "</article>";
}

}  // namespace neurarch::render
