#include "calibration/validate.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "plan/options.hpp"
#include "plan/plan.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::calibration {
namespace fs = std::filesystem;

MeasuredSet load_measured(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(ErrorKind::NotFound, dir.string(), "not a folder of measured CSV files");
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".csv") files.push_back(entry.path());
  if (ec) throw Error(ErrorKind::Io, dir.string(), ec.message());
  std::sort(files.begin(), files.end());
  MeasuredSet set;
  for (const auto& file : files) {
    const auto size = fs::file_size(file, ec);
    if (ec) throw Error(ErrorKind::Io, file.string(), ec.message());
    if (size > kMaxCsvBytes)
      throw Error(ErrorKind::InvalidInput, file.string(),
                  fmt::format("{} bytes is over the {} byte limit of a calibration CSV", size, kMaxCsvBytes));
    std::ifstream in(file, std::ios::binary);
    if (!in) throw Error(ErrorKind::Io, file.string(), "cannot open");
    std::stringstream text;
    text << in.rdbuf();
    ++set.files;
    try {
      auto rows = read_rows(parse_csv(text.str(), file.string()), set.errors);
      set.rows.insert(set.rows.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
    } catch (const Error& e) {
      set.errors.push_back(e.what());
    }
  }
  return set;
}

bool Evaluation::targets_met() const {
  return std::all_of(targets.begin(), targets.end(), [](const TargetCheck& t) { return t.met(); });
}

std::vector<const RowResult*> Evaluation::worst(std::size_t n) const {
  std::vector<const RowResult*> peaks;
  for (const auto& r : results)
    if (r.peak_row) peaks.push_back(&r);
  std::stable_sort(peaks.begin(), peaks.end(), [](const RowResult* a, const RowResult* b) {
    return std::fabs(a->error_percent) > std::fabs(b->error_percent);
  });
  if (peaks.size() > n) peaks.resize(n);
  return peaks;
}

namespace {

// The planner's answer for one row, through make_plan with the row's own card as the catalogue.
struct Planned {
  plan::MemoryPlan memory;
  std::int64_t max_batch = 0;
};

Planned plan_row(const graph::Graph& g, const MeasuredRow& r, const plan::Runtime& rt) {
  // calibration/measure.py trains under bf16 autocast; everything else the row states.
  plan::SetupChoices c;
  c.set("batch", std::to_string(r.batch));
  c.set("attention", r.attention == "eager" ? "eager" : "sdpa");
  c.set("optimizer", r.optimizer.empty() ? "adamw" : r.optimizer);
  c.set("lora_rank", std::to_string(r.lora_rank));
  c.set("lora_dropout", plan::option_text(r.lora_dropout));
  c.set("hold_outputs", "false");  // measure.py: loss = loss_of(model(**inputs)) drops the outputs
  plan::PlanOptions o = plan::plan_options(c, rt);
  plan::Card card;
  card.name = r.card.empty() ? "measured device" : r.card;
  card.memory_bytes = r.card_bytes.value_or(r.total_memory_bytes);
  // Only the memory matters here; make_plan also prices a run, which needs non-zero rates.
  card.dense_tflops = 1;
  card.bandwidth_gbps = 1;
  card.source = "calibration row " + r.where();
  o.cards = {card};
  const auto p = plan::make_plan(g, o);
  const bool full = r.mode == "full";
  return {full ? p.full : p.lora, full ? p.cards.at(0).full_max_batch : p.cards.at(0).lora_max_batch};
}

std::string graph_key(const MeasuredRow& r) {
  return fmt::format("{}\n{}\n{}\n{}", r.config, r.class_name, r.seq_len.value_or(0), r.image_size.value_or(0));
}

std::string where_config(const MeasuredRow& r) { return fmt::format("{}:{}:{}", r.file, r.line, r.config_column); }

}  // namespace

Evaluation evaluate(const std::vector<MeasuredRow>& rows, const EvaluateOptions& options,
                    std::vector<std::string>& errors, std::optional<ErrorKind>& error_kind) {
  Evaluation ev;
  ev.rows = rows.size();
  ev.runtime_fragmentation = options.runtime.fragmentation_fraction;
  ev.runtime_context_bytes = options.runtime.cuda_context_bytes;
  std::set<std::string> files, environments;  // files: those that hold rows
  std::map<std::string, report::Report> graphs;
  std::vector<double> contexts;

  auto record_error = [&](ErrorKind kind, const std::string& line) {
    errors.push_back(line);
    if (!error_kind) error_kind = kind;
  };

  for (const auto& row : rows) {
    files.insert(row.file);
    if (row.status == RunStatus::Error) {
      ++ev.errored;
      continue;
    }
    (row.status == RunStatus::Ok ? ev.ok : ev.oom)++;
    environments.insert(fmt::format("{} (driver {}); torch {}, transformers {}, peft {}", row.gpu_name,
                                    row.driver_version, row.torch_version, row.transformers_version,
                                    row.peft_version));
    const std::string key = graph_key(row);
    auto it = graphs.find(key);
    if (it == graphs.end()) {
      const fs::path config = options.config_root / row.config;
      std::error_code ec;
      if (!fs::is_regular_file(config, ec)) {
        record_error(ErrorKind::NotFound,
                     fmt::format("{}: config '{}' not found under {}", where_config(row), row.config,
                                 options.config_root.string()));
        continue;
      }
      try {
        resolve::ResolveOptions ro;
        ro.offline = true;
        pipeline::TraceOptions to;
        to.build.class_name = row.class_name;
        to.build.seq = row.seq_len;
        to.build.image_size = row.image_size;
        to.read_checkpoint = false;
        to.lint = false;
        it = graphs.emplace(key, pipeline::trace(resolve::resolve(config.string(), ro), to)).first;
      } catch (const Error& e) {
        record_error(e.kind(), fmt::format("{}: {}", where_config(row), e.what()));
        continue;
      }
    }
    const auto& traced = it->second;
    if (traced.model.model_type != row.model_type) {
      record_error(ErrorKind::InvalidInput,
                   fmt::format("{}: model_type '{}' but the config builds '{}'", where_config(row), row.model_type,
                               traced.model.model_type));
      continue;
    }
    Planned p;
    try {
      p = plan_row(traced.graph, row, options.runtime);
    } catch (const Error& e) {
      record_error(e.kind(), fmt::format("{}: {}", row.where(), e.what()));
      continue;
    }
    RowResult r;
    r.row = row;
    r.predicted_allocated = p.memory.peak_allocated;
    r.predicted_reserved = p.memory.reserved;
    r.predicted_device = p.memory.device_bytes;
    r.predicted_peak_phase = p.memory.peak_phase;
    r.predicted_trainable = p.memory.trainable_parameters;
    r.predicted_max_batch = p.max_batch;
    r.sweep_row = row.card_bytes.has_value();
    r.peak_row = !r.sweep_row && row.status == RunStatus::Ok;
    if (r.peak_row) {
      const double measured = static_cast<double>(*row.measured_device_bytes());
      r.error_percent = percent_error(static_cast<double>(r.predicted_device), measured);
      if (*row.max_allocated_bytes > 0)
        r.allocated_error_percent =
            percent_error(static_cast<double>(r.predicted_allocated), static_cast<double>(*row.max_allocated_bytes));
      contexts.push_back(static_cast<double>(*row.context_bytes));
      if (!row.peak_phase.empty()) {
        ++ev.phase_rows;
        if (row.peak_phase == r.predicted_peak_phase) ++ev.phase_agree;
      }
    }
    if (r.sweep_row) ev.confusion.add(row.status == RunStatus::Ok, r.predicted_max_batch >= row.batch);
    if (row.trainable_parameters && *row.trainable_parameters != r.predicted_trainable)
      ev.trainable_mismatches.push_back(fmt::format("{} ({}, {}): measured {} trainable parameters, planned {}",
                                                    row.where(), row.case_id, row.mode, *row.trainable_parameters,
                                                    r.predicted_trainable));
    ev.results.push_back(std::move(r));
  }
  ev.files = files.size();
  ev.environments.assign(environments.begin(), environments.end());
  ev.measured_context_median_bytes = percentile(contexts, 50);

  // The fragmentation fit, on every family and then leaving each family out in turn.
  std::vector<FitPoint> points;
  for (const auto& r : ev.results)
    if (r.peak_row)
      points.push_back({r.row.model_type, static_cast<double>(r.predicted_allocated),
                        static_cast<double>(*r.row.measured_device_bytes()),
                        static_cast<double>(options.runtime.cuda_context_bytes)});
  ev.fitted_fragmentation = fit_fragmentation(points);
  std::set<std::string> compared_families;
  for (const auto& r : ev.results) compared_families.insert(r.row.model_type);
  ev.held_out_fits =
      leave_one_family_out(points, std::vector<std::string>(compared_families.begin(), compared_families.end()));
  std::map<std::string, double> held_out;
  for (const auto& f : ev.held_out_fits) held_out[f.family] = f.fraction;
  for (auto& r : ev.results) {
    auto f = held_out.find(r.row.model_type);
    if (f == held_out.end()) continue;
    plan::Runtime rt = options.runtime;
    rt.fragmentation_fraction = f->second;
    const auto graph_it = graphs.find(graph_key(r.row));
    const Planned p = plan_row(graph_it->second.graph, r.row, rt);
    if (r.peak_row)
      r.held_out_error_percent =
          percent_error(static_cast<double>(p.memory.device_bytes), static_cast<double>(*r.row.measured_device_bytes()));
    if (r.sweep_row) {
      r.held_out_predicted_fits = p.max_batch >= r.row.batch;
      ev.held_out_confusion.add(r.row.status == RunStatus::Ok, *r.held_out_predicted_fits);
    }
  }

  // Per family and overall.
  std::map<std::string, FamilySummary> families;
  std::vector<double> all, all_allocated, all_held_out;
  std::map<std::string, std::vector<double>> device, allocated, held;
  for (const auto& r : ev.results) {
    auto& fam = families[r.row.model_type];
    fam.family = r.row.model_type;
    ++fam.rows;
    if (r.sweep_row) fam.confusion.add(r.row.status == RunStatus::Ok, r.predicted_max_batch >= r.row.batch);
    if (!r.peak_row) continue;
    device[fam.family].push_back(r.error_percent);
    all.push_back(r.error_percent);
    if (*r.row.max_allocated_bytes > 0) {
      allocated[fam.family].push_back(r.allocated_error_percent);
      all_allocated.push_back(r.allocated_error_percent);
    }
    if (r.held_out_error_percent) {
      held[fam.family].push_back(*r.held_out_error_percent);
      all_held_out.push_back(*r.held_out_error_percent);
    }
  }
  for (auto& [name, fam] : families) {
    fam.device = summarize(device[name]);
    fam.allocated = summarize(allocated[name]);
    fam.held_out = summarize(held[name]);
    ev.families.push_back(fam);
  }
  ev.overall = summarize(all);
  ev.overall_allocated = summarize(all_allocated);
  ev.overall_held_out = summarize(all_held_out);

  const auto& t = options.targets;
  auto confusion_targets = [&](const Confusion& c, const char* figure) {
    std::optional<double> oom, refused;
    if (c.measured_oom() > 0 || c.measured_fit() > 0) oom = static_cast<double>(c.oom_called_fits);
    if (c.measured_fit() > 0) refused = c.refused_fitting_percent();
    ev.targets.push_back({"measured OOMs predicted to fit", figure, oom, static_cast<double>(t.max_oom_called_fits)});
    ev.targets.push_back({"fitting jobs predicted not to fit (%)", figure, refused, t.max_refused_fitting_percent});
  };
  auto peak_targets = [&](const std::optional<ErrorSummary>& s, const char* figure) {
    ev.targets.push_back({"median |error| of the peak (%)", figure,
                          s ? std::optional<double>(s->median_abs_percent) : std::nullopt, t.max_median_abs_percent});
    ev.targets.push_back({"90th percentile |error| of the peak (%)", figure,
                          s ? std::optional<double>(s->p90_abs_percent) : std::nullopt, t.max_p90_abs_percent});
  };
  confusion_targets(ev.confusion, "shipped");
  peak_targets(ev.overall, "shipped");
  if (!ev.held_out_fits.empty()) {
    confusion_targets(ev.held_out_confusion, "held-out");
    peak_targets(ev.overall_held_out, "held-out");
  }
  return ev;
}

}  // namespace neurarch::calibration
