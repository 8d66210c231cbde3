#include "calibration/cpu_validate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/embedded_data.hpp"
#include "plan/memory.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::calibration {
namespace fs = std::filesystem;

CpuProfile parse_cpu_profile(std::string_view json_text, const std::string& origin) {
  CpuProfile p;
  p.runtime = plan::parse_runtime(json_text, origin);
  const auto j = nlohmann::json::parse(json_text);
  if (!j.contains("dropout_mask_bytes") || !j["dropout_mask_bytes"].contains("value"))
    throw Error(ErrorKind::InvalidInput, origin, "missing 'dropout_mask_bytes.value'");
  p.dropout_mask_bytes = j["dropout_mask_bytes"]["value"].get<int>();
  if (!j.contains("sdpa_dropout_runs_math") || !j["sdpa_dropout_runs_math"].contains("value"))
    throw Error(ErrorKind::InvalidInput, origin, "missing 'sdpa_dropout_runs_math.value'");
  p.sdpa_dropout_runs_math = j["sdpa_dropout_runs_math"]["value"].get<bool>();
  if (!j.contains("autocast_softmax_fp32") || !j["autocast_softmax_fp32"].contains("value"))
    throw Error(ErrorKind::InvalidInput, origin, "missing 'autocast_softmax_fp32.value'");
  p.autocast_softmax_fp32 = j["autocast_softmax_fp32"]["value"].get<bool>();
  if (p.dropout_mask_bytes < 0) throw Error(ErrorKind::InvalidInput, origin, "dropout_mask_bytes must not be negative");
  return p;
}

const CpuProfile& default_cpu_profile() {
  static const CpuProfile p = parse_cpu_profile(embedded_data("runtime-cpu.json"), "data/runtime-cpu.json");
  return p;
}

bool CpuEvaluation::targets_met() const {
  if (!phases) return true;
  return phases->median_abs_percent <= targets.max_median_abs_percent &&
         phases->p90_abs_percent <= targets.max_p90_abs_percent && under10 <= targets.max_under10;
}

namespace {

// What the planner cannot express yet, by the feature it lacks; empty when it can.
std::string missing_feature(const CpuRow& r) {
  if (r.optimizer != "adamw" && r.optimizer != "none") return fmt::format("optimizer '{}'", r.optimizer);
  if (r.optimizer == "adamw" && !r.foreach) return "AdamW's per-parameter (for-loop) step";
  if (r.mode == "lora" && r.precision != "amp-bf16") return fmt::format("LoRA in {}", r.precision);
  if (r.precision != "fp32" && r.precision != "amp-bf16" && r.precision != "bf16")
    return fmt::format("precision '{}'", r.precision);
  return "";
}

plan::Setup setup_of(const CpuRow& r, const CpuProfile& profile) {
  plan::Setup s;
  s.mode = r.mode == "lora" ? plan::Mode::LoRA : plan::Mode::Full;
  s.optimizer = r.optimizer == "none" ? plan::Optimizer::None : plan::Optimizer::AdamW;
  s.attention = r.attention == "eager" ? plan::AttentionImpl::Eager : plan::AttentionImpl::SDPA;
  s.precision = r.precision == "amp-bf16" ? plan::Precision::AmpBf16
                : r.precision == "bf16"   ? plan::Precision::Bf16
                                          : plan::Precision::Fp32;
  s.batch = r.batch;
  if (r.loss == "logits-sum") s.loss = plan::Loss::LogitsSum;
  s.hold_outputs = r.hold_outputs;
  s.lora_rank = r.lora_rank;
  s.lora_dropout = r.lora_dropout;
  s.dropout_mask_bytes = profile.dropout_mask_bytes;
  s.sdpa_dropout_runs_math = profile.sdpa_dropout_runs_math;
  s.autocast_softmax_fp32 = profile.autocast_softmax_fp32;
  return s;
}

std::string graph_key(const CpuRow& r) {
  return fmt::format("{}\n{}\n{}\n{}", r.config, r.class_name, r.seq.value_or(0), r.image_size.value_or(0));
}

}  // namespace

CpuEvaluation evaluate_cpu(const std::vector<CpuRow>& rows, const fs::path& config_root, const CpuProfile& profile,
                           std::vector<std::string>& errors, std::optional<ErrorKind>& error_kind) {
  CpuEvaluation ev;
  std::map<std::string, report::Report> graphs;
  std::vector<double> all;
  std::map<std::string, std::vector<double>> by_phase, by_family;
  auto record_error = [&](ErrorKind kind, const std::string& line) {
    errors.push_back(line);
    if (!error_kind) error_kind = kind;
  };
  for (const auto& row : rows) {
    CpuRowResult res;
    res.row = row;
    res.inexpressible = missing_feature(row);
    if (!res.inexpressible.empty()) {
      ++ev.inexpressible;
      ++ev.missing[res.inexpressible];
      ev.results.push_back(std::move(res));
      continue;
    }
    auto it = graphs.find(graph_key(row));
    if (it == graphs.end()) {
      const fs::path config = config_root / row.config;
      std::error_code ec;
      if (!fs::is_regular_file(config, ec)) {
        record_error(ErrorKind::NotFound, fmt::format("{}: config '{}' not found under {}", row.where(), row.config,
                                                      config_root.string()));
        continue;
      }
      try {
        resolve::ResolveOptions ro;
        ro.offline = true;
        pipeline::TraceOptions to;
        to.build.class_name = row.class_name;
        to.build.seq = row.seq;
        to.build.target_seq = row.seq;  // the step trains the decoder on labels as long as the input
        to.build.image_size = row.image_size;
        to.read_checkpoint = false;
        to.lint = false;
        it = graphs.emplace(graph_key(row), pipeline::trace(resolve::resolve(config.string(), ro), to)).first;
      } catch (const Error& e) {
        record_error(e.kind(), fmt::format("{}: {}", row.where(), e.what()));
        continue;
      }
    }
    const auto& traced = it->second;
    if (traced.model.model_type != row.model_type) {
      record_error(ErrorKind::InvalidInput, fmt::format("{}: model_type '{}' but the config builds '{}'", row.where(),
                                                        row.model_type, traced.model.model_type));
      continue;
    }
    plan::MemoryModel model(traced.graph, setup_of(row, profile), profile.runtime);
    const auto plan = model.at(row.batch);
    res.planned_trainable = plan.trainable_parameters;
    if (res.planned_trainable != row.trainable_parameters)
      ev.trainable_mismatches.push_back(fmt::format("{} ({}, {}): measured {} trainable parameters, planned {}",
                                                    row.where(), row.model, row.mode, row.trainable_parameters,
                                                    res.planned_trainable));
    const std::int64_t measured[] = {row.forward, row.backward, row.optimizer_step};
    const char* names[] = {"forward", "backward", "optimizer"};
    for (std::size_t i = 0; i < 3 && i < plan.phases.size(); ++i) {
      CpuPhase ph{names[i], measured[i], plan.phases[i].allocated, 0};
      ph.error_percent = percent_error(static_cast<double>(ph.planned), static_cast<double>(ph.measured));
      all.push_back(ph.error_percent);
      by_phase[ph.name].push_back(ph.error_percent);
      by_family[row.model_type].push_back(ph.error_percent);
      if (ph.error_percent < -10.0) ++ev.under10;
      res.phases.push_back(ph);
    }
    ++ev.planned;
    ev.results.push_back(std::move(res));
  }
  ev.phases = summarize(all);
  for (const auto& [k, v] : by_phase) ev.per_phase[k] = summarize(v);
  for (const auto& [k, v] : by_family) ev.per_family[k] = summarize(v);
  return ev;
}

namespace {

std::string mib(std::int64_t b) { return fmt::format("{:.1f}", static_cast<double>(b) / (1024.0 * 1024.0)); }

std::string summary_cells(const std::optional<ErrorSummary>& s) {
  if (!s) return "-";
  return fmt::format("n {:>3}  median |err| {:5.1f}%  p90 {:5.1f}%  signed median {:+6.1f}%  max {:5.1f}%", s->count,
                     s->median_abs_percent, s->p90_abs_percent, s->median_signed_percent, s->max_abs_percent);
}

}  // namespace

std::string render_cpu_text(const CpuEvaluation& ev, const std::string& dir, bool per_row) {
  std::string out = fmt::format("CPU-measured training steps in {} (exact live tensor bytes; planned with "
                                "data/runtime-cpu.json)\n",
                                dir);
  if (per_row) {
    out += fmt::format("{:<44} {:<5} {:<8} {:<5} {:>2} {:>5}  {:>24}  {:>24}  {:>24}\n", "row", "mode", "precision",
                       "attn", "b", "len", "forward MiB (err)", "backward MiB (err)", "optimizer MiB (err)");
    for (const auto& r : ev.results) {
      const auto& w = r.row;
      std::string name = fmt::format("{} {}", w.model, w.where().substr(w.where().rfind('/') + 1));
      std::string line = fmt::format("{:<44} {:<5} {:<8} {:<5} {:>2} {:>5}", name, w.mode, w.precision, w.attention,
                                     w.batch, w.seq.value_or(w.image_size.value_or(0)));
      if (!r.inexpressible.empty()) {
        line += "  inexpressible: " + r.inexpressible;
      } else {
        for (const auto& p : r.phases)
          line += fmt::format("  {:>9}/{:>9} {:+5.1f}%", mib(p.planned), mib(p.measured), p.error_percent);
      }
      out += line + "\n";
    }
  }
  out += "\nPer phase (planned vs measured peak):\n";
  for (const auto& [k, s] : ev.per_phase) out += fmt::format("  {:<10} {}\n", k, summary_cells(s));
  out += "Per family:\n";
  for (const auto& [k, s] : ev.per_family) out += fmt::format("  {:<12} {}\n", k, summary_cells(s));
  if (!ev.missing.empty()) {
    out += "Inexpressible (the planner lacks):\n";
    for (const auto& [k, n] : ev.missing) out += fmt::format("  {:>3} rows: {}\n", n, k);
  }
  for (const auto& m : ev.trainable_mismatches) out += "trainable parameters differ: " + m + "\n";
  const double median = ev.phases ? ev.phases->median_abs_percent : 0;
  const double p90 = ev.phases ? ev.phases->p90_abs_percent : 0;
  out += fmt::format("cpu: rows {}, planned {}, inexpressible {}, median {:.1f}%, p90 {:.1f}%, under10 {}\n",
                     ev.results.size(), ev.planned, ev.inexpressible, median, p90, ev.under10);
  return out;
}

}  // namespace neurarch::calibration
