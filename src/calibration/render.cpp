#include "calibration/render.hpp"

#include <fmt/format.h>

namespace neurarch::calibration {
namespace {

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024.0 * 1024.0)); }

std::string pct(const std::optional<ErrorSummary>& s, double ErrorSummary::*field, bool signed_value = false) {
  if (!s) return "—";
  return signed_value ? fmt::format("{:+.1f} %", (*s).*field) : fmt::format("{:.1f} %", (*s).*field);
}

std::string shape_of(const MeasuredRow& r) {
  return r.seq_len ? fmt::format("seq {}", *r.seq_len) : fmt::format("{} px", r.image_size.value_or(0));
}

nlohmann::json summary_json(const std::optional<ErrorSummary>& s) {
  if (!s) return nullptr;
  return {{"rows", s->count},
          {"median_abs_percent", s->median_abs_percent},
          {"p90_abs_percent", s->p90_abs_percent},
          {"median_signed_percent", s->median_signed_percent},
          {"max_abs_percent", s->max_abs_percent}};
}

nlohmann::json confusion_json(const Confusion& c) {
  return {{"measured_oom_predicted_fits", c.oom_called_fits},
          {"measured_oom_predicted_oom", c.oom_called_oom},
          {"measured_fits_predicted_fits", c.fit_called_fits},
          {"measured_fits_predicted_oom", c.fit_called_oom},
          {"refused_fitting_percent", c.measured_fit() ? nlohmann::json(c.refused_fitting_percent()) : nlohmann::json(nullptr)}};
}

void confusion_text(std::string& out, const Confusion& c) {
  out += fmt::format("  {:<16} {:>15} {:>15}\n", "", "predicted fits", "predicted OOM");
  out += fmt::format("  {:<16} {:>15} {:>15}   ({:.1f} % of fitting jobs refused)\n", "measured fits", c.fit_called_fits,
                     c.fit_called_oom, c.refused_fitting_percent());
  out += fmt::format("  {:<16} {:>15} {:>15}   <- measured OOMs called \"fits\": {} (must be 0)\n", "measured OOM",
                     c.oom_called_fits, c.oom_called_oom, c.oom_called_fits);
}

}  // namespace

std::string render_text(const Evaluation& ev, const std::string& dir) {
  std::string out = fmt::format(
      "neurarch-trace validate {}: {} rows in {} CSV files ({} ok, {} out of memory, {} failed runs skipped)\n", dir,
      ev.rows, ev.files, ev.ok, ev.oom, ev.errored);
  for (const auto& e : ev.environments) out += "  measured on " + e + "\n";

  out += "\nPeak memory (max_memory_reserved + CUDA context) on the whole device, planner vs measured:\n";
  out += fmt::format("  {:<24} {:>5} {:>13} {:>10} {:>11} {:>16} {:>13}\n", "family", "rows", "median |err|",
                     "p90 |err|", "median err", "held-out median", "held-out p90");
  auto line = [&](const std::string& name, std::size_t rows, const std::optional<ErrorSummary>& d,
                  const std::optional<ErrorSummary>& h) {
    out += fmt::format("  {:<24} {:>5} {:>13} {:>10} {:>11} {:>16} {:>13}\n", name, rows,
                       pct(d, &ErrorSummary::median_abs_percent), pct(d, &ErrorSummary::p90_abs_percent),
                       pct(d, &ErrorSummary::median_signed_percent, true), pct(h, &ErrorSummary::median_abs_percent),
                       pct(h, &ErrorSummary::p90_abs_percent));
  };
  for (const auto& f : ev.families) line(f.family, f.device ? f.device->count : 0, f.device, f.held_out);
  line("overall", ev.overall ? ev.overall->count : 0, ev.overall, ev.overall_held_out);
  out += "  (err = 100 x (predicted - measured) / measured; > 0 errs towards \"does not fit\")\n";
  if (ev.overall_allocated)
    out += fmt::format("  allocated alone (max_memory_allocated vs the planner's peak): median {:.1f} %, p90 {:.1f} %\n",
                       ev.overall_allocated->median_abs_percent, ev.overall_allocated->p90_abs_percent);
  if (ev.measured_context_median_bytes)
    out += fmt::format("  CUDA context: measured median {}, the planner assumes {}\n",
                       gib(*ev.measured_context_median_bytes), gib(static_cast<double>(ev.runtime_context_bytes)));
  if (ev.phase_rows)
    out += fmt::format("  peak phase: the planner names the measured one on {} of {} rows\n", ev.phase_agree,
                       ev.phase_rows);

  out += fmt::format("\nFragmentation fraction: runtime {:.3f}", ev.runtime_fragmentation);
  if (ev.fitted_fragmentation) out += fmt::format("; fitted on every family {:.3f}", *ev.fitted_fragmentation);
  out += "\n";
  if (ev.held_out_fits.empty()) {
    out += "  leave-one-family-out: not possible with fewer than two families measured on the whole device\n";
  } else {
    out += "  leave-one-family-out (fitted without the family):";
    for (const auto& f : ev.held_out_fits) out += fmt::format(" {} {:.3f}", f.family, f.fraction);
    out += "\n";
  }

  out += "\nCard-size sweeps (emulated cards), fits / does not fit:\n";
  if (ev.confusion.total() == 0) {
    out += "  no rows on emulated cards\n";
  } else {
    confusion_text(out, ev.confusion);
    if (!ev.held_out_fits.empty()) {
      out += "  held out by family:\n";
      confusion_text(out, ev.held_out_confusion);
    }
  }

  const auto worst = ev.worst(10);
  if (!worst.empty()) {
    out += fmt::format("\nWorst {} rows:\n", worst.size());
    out += fmt::format("  {:>8} {:>10} {:>10}  {:<16} {:<14} {:<5} {:>5} {:<9}  {:<29} {}\n", "error", "predicted",
                       "measured", "case", "family", "mode", "batch", "shape", "peak phase planned/measured", "row");
    for (const auto* r : worst)
      out += fmt::format("  {:>+7.1f}% {:>10} {:>10}  {:<16} {:<14} {:<5} {:>5} {:<9}  {:<29} {}\n", r->error_percent,
                         gib(static_cast<double>(r->predicted_device)),
                         gib(static_cast<double>(*r->row.measured_device_bytes())), r->row.case_id,
                         r->row.model_type, r->row.mode, r->row.batch, shape_of(r->row),
                         r->predicted_peak_phase + "/" + (r->row.peak_phase.empty() ? "?" : r->row.peak_phase),
                         r->row.where());
  }
  if (!ev.trainable_mismatches.empty()) {
    out += fmt::format("\nTrainable parameters differ on {} rows (the planner adapts other modules than PEFT did):\n",
                       ev.trainable_mismatches.size());
    for (std::size_t i = 0; i < ev.trainable_mismatches.size() && i < 10; ++i)
      out += "  " + ev.trainable_mismatches[i] + "\n";
  }

  out += "\nTargets (issue 8; shipped = data/runtime.json as is, held-out = fragmentation fitted without the family):\n";
  for (const auto& t : ev.targets)
    out += fmt::format("  {:<42} {:<9} {:>10}  (at most {:g})  {}\n", t.name, t.figure,
                       t.value ? fmt::format("{:.2f}", *t.value) : "no data", t.limit,
                       !t.value ? "not measured" : t.met() ? "met" : "MISSED");
  out += ev.targets_met() ? "all targets met\n" : "a target is missed\n";
  return out;
}

nlohmann::json render_json(const Evaluation& ev, const std::string& dir) {
  nlohmann::json j{{"schema", kReportSchema},
                   {"dir", dir},
                   {"files", ev.files},
                   {"rows", {{"total", ev.rows}, {"ok", ev.ok}, {"oom", ev.oom}, {"failed_runs", ev.errored}}},
                   {"environments", ev.environments}};
  auto families = nlohmann::json::array();
  for (const auto& f : ev.families)
    families.push_back({{"family", f.family},
                        {"rows", f.rows},
                        {"device", summary_json(f.device)},
                        {"allocated", summary_json(f.allocated)},
                        {"held_out", summary_json(f.held_out)},
                        {"confusion", confusion_json(f.confusion)}});
  j["families"] = families;
  j["overall"] = {{"device", summary_json(ev.overall)},
                  {"allocated", summary_json(ev.overall_allocated)},
                  {"held_out", summary_json(ev.overall_held_out)}};
  j["confusion"] = confusion_json(ev.confusion);
  j["held_out_confusion"] = ev.held_out_fits.empty() ? nlohmann::json(nullptr) : confusion_json(ev.held_out_confusion);
  j["peak_phase"] = {{"rows", ev.phase_rows}, {"agree", ev.phase_agree}};
  j["cuda_context"] = {{"runtime_bytes", ev.runtime_context_bytes},
                       {"measured_median_bytes", ev.measured_context_median_bytes
                                                     ? nlohmann::json(*ev.measured_context_median_bytes)
                                                     : nlohmann::json(nullptr)}};
  auto held = nlohmann::json::array();
  for (const auto& f : ev.held_out_fits)
    held.push_back({{"family", f.family}, {"fraction", f.fraction}, {"trained_on_rows", f.trained_on}});
  j["fragmentation"] = {{"runtime", ev.runtime_fragmentation},
                        {"fitted_all_families", ev.fitted_fragmentation ? nlohmann::json(*ev.fitted_fragmentation)
                                                                        : nlohmann::json(nullptr)},
                        {"leave_one_family_out", held}};
  auto worst = nlohmann::json::array();
  for (const auto* r : ev.worst(10))
    worst.push_back({{"row", r->row.where()},
                     {"case_id", r->row.case_id},
                     {"family", r->row.model_type},
                     {"mode", r->row.mode},
                     {"batch", r->row.batch},
                     {"seq_len", r->row.seq_len ? nlohmann::json(*r->row.seq_len) : nlohmann::json(nullptr)},
                     {"image_size", r->row.image_size ? nlohmann::json(*r->row.image_size) : nlohmann::json(nullptr)},
                     {"predicted_device_bytes", r->predicted_device},
                     {"measured_device_bytes", *r->row.measured_device_bytes()},
                     {"error_percent", r->error_percent},
                     {"predicted_peak_phase", r->predicted_peak_phase},
                     {"measured_peak_phase", r->row.peak_phase}});
  j["worst"] = worst;
  j["trainable_mismatches"] = ev.trainable_mismatches;
  auto targets = nlohmann::json::array();
  for (const auto& t : ev.targets)
    targets.push_back({{"name", t.name},
                       {"figure", t.figure},
                       {"value", t.value ? nlohmann::json(*t.value) : nlohmann::json(nullptr)},
                       {"limit", t.limit},
                       {"met", t.met()},
                       {"measured", t.value.has_value()}});
  j["targets"] = targets;
  j["targets_met"] = ev.targets_met();
  return j;
}

}  // namespace neurarch::calibration
