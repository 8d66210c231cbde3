#include "calibration/published.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "plan/plan.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::calibration {
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool starts_with(const std::string& s, std::string_view prefix) { return s.rfind(prefix, 0) == 0; }
bool contains(const std::string& s, std::string_view part) { return s.find(part) != std::string::npos; }

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorKind::NotFound, file.string(), "cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string text_field(const Json& row, const char* key, const std::string& where, bool required = true) {
  if (!row.contains(key) || row[key].is_null()) {
    if (required) throw Error(ErrorKind::InvalidInput, where, fmt::format("missing '{}'", key));
    return {};
  }
  if (!row[key].is_string()) throw Error(ErrorKind::InvalidInput, where, fmt::format("'{}' must be a string", key));
  return row[key].get<std::string>();
}

std::optional<std::int64_t> int_field(const Json& row, const char* key, const std::string& where) {
  if (!row.contains(key) || row[key].is_null()) return std::nullopt;
  if (!row[key].is_number_integer() || row[key].get<std::int64_t>() < 0)
    throw Error(ErrorKind::InvalidInput, where, fmt::format("'{}' must be a non-negative integer", key));
  return row[key].get<std::int64_t>();
}

// The optimizer as the row's source names it (the first word, `_` read as `-`: transformers' `optim`
// values and bitsandbytes' class names come either way), in the planner's vocabulary. transformers' own
// AdamW ("adamw_hf") steps one tensor at a time; torch.optim.Adam keeps the same two moments as AdamW.
bool set_optimizer(plan::SetupChoices& c, const std::string& stated, std::vector<std::string>& missing) {
  std::string o = lower(stated.substr(0, stated.find_first_of(" ;,(")));
  std::replace(o.begin(), o.end(), '_', '-');
  static const std::map<std::string, std::string> kNames{
      {"adamw-hf", "adamw"},          {"adamw-torch", "adamw"},        {"adamw", "adamw"},
      {"adam", "adamw"},              {"torch.optim.adamw", "adamw"},  {"torch.optim.adam", "adamw"},
      {"adamw-fused", "adamw-fused"}, {"adamw-torch-fused", "adamw-fused"}, {"adamw-apex-fused", "adamw-fused"},
      {"adam-8bit", "adamw-8bit"},    {"adamw-8bit", "adamw-8bit"},    {"adamw-bnb-8bit", "adamw-8bit"},
      {"adam8bit", "adamw-8bit"},     {"adamw8bit", "adamw-8bit"},
      {"paged-adamw-8bit", "paged-adamw-8bit"}, {"paged-adam-8bit", "paged-adamw-8bit"},
      {"paged-adamw-32bit", "paged-adamw"}, {"paged-adamw", "paged-adamw"}, {"pagedadamw", "paged-adamw"},
      {"adafactor", "adafactor"},     {"sgd", "sgd"},                  {"sgd-momentum", "sgd-momentum"},
      {"none", "none"}};
  const auto it = kNames.find(o);
  if (it == kNames.end()) {
    missing.push_back(fmt::format("optimizer '{}'", o));
    return false;
  }
  // "sgd (momentum 0.9)", "SGD with Nesterov": a momentum buffer per parameter unless the momentum stated is 0.
  if (it->second == "sgd") {
    static const std::regex kMomentum(R"(momentum\s*[=:]?\s*(\d*\.?\d+)?)");
    const std::string text = lower(stated);
    std::smatch m;
    // The stated number is read for a nonzero digit, never converted: an absurd one cannot throw.
    bool momentum = contains(text, "nesterov");
    if (std::regex_search(text, m, kMomentum))
      momentum = !m[1].matched || m[1].str().find_first_of("123456789") != std::string::npos;
    if (contains(text, "no momentum") || contains(text, "without momentum")) momentum = false;
    if (momentum) {
      c.set("optimizer", "sgd-momentum");
      return true;
    }
  }
  c.set("optimizer", it->second);
  if (o == "adamw-hf") c.set("optimizer_foreach", "false");
  return true;
}

// The schema's spellings, Lightning's (`bf16-mixed` is autocast, `bf16-true` the whole model in bf16) and the
// same in words ("bf16 AMP", "mixed precision fp16", "pure bf16"); `_` and spaces read as `-`. A bare "bf16"
// says neither autocast nor pure half and is listed as missing, not guessed.
void set_precision(plan::SetupChoices& c, const PublishedRow& r, std::vector<std::string>& missing) {
  std::string p = lower(r.precision);
  std::replace_if(p.begin(), p.end(), [](char ch) { return ch == '_' || ch == ' '; }, '-');
  const char* half = contains(p, "bf16") ? "bf16" : contains(p, "fp16") || starts_with(p, "16-") ? "fp16" : nullptr;
  const bool mixed = contains(p, "amp") || contains(p, "mixed") || contains(p, "autocast") || contains(p, "scaler");
  const bool pure = contains(p, "pure") || contains(p, "-true");
  // A 4-bit base computes in the stated dtype; only QLoRA quantizes the base.
  if ((starts_with(p, "4bit-nf4") || starts_with(p, "nf4")) && r.mode == "qlora")
    c.set("precision", contains(p, "fp16") ? "fp16" : "bf16");
  else if (starts_with(p, "fp32") || starts_with(p, "32") || starts_with(p, "tf32"))  // Lightning: "32", "32-true"
    c.set("precision", "fp32");
  else if (half && mixed) c.set("precision", std::string("amp-") + half);
  else if (half && pure) c.set("precision", half);
  else missing.push_back(fmt::format("precision '{}'", r.precision));
  // The block constants as stated: litgpt's bnb.nf4 / bnb.nf4-dq, or "double quant" in words.
  if (r.mode == "qlora") {
    if (contains(p, "nf4-dq") || contains(p, "double")) c.set("qlora_double_quant", "true");
    else if (contains(p, "bnb.nf4")) c.set("qlora_double_quant", "false");
  }
}

// Framework and era from the row's framework and versions text.
void set_software(plan::SetupChoices& c, const PublishedRow& r, std::vector<std::string>& missing) {
  const std::string f = lower(r.framework), v = lower(r.versions);
  std::smatch m;
  // TRL's SFTTrainer, Axolotl and LLaMA-Factory run transformers' Trainer loop; Accelerate leaves the loop
  // to the script.
  if (starts_with(f, "hf trainer") || starts_with(f, "transformers trainer") || contains(f, "sfttrainer") ||
      starts_with(f, "trl") || starts_with(f, "axolotl") || starts_with(f, "llama-factory") ||
      starts_with(f, "llamafactory")) {
    static const std::regex kTransformers(R"(transformers\s*~?\s*(\d+\.\d+))");
    c.set("framework", std::regex_search(v, m, kTransformers) ? "hf-trainer@" + m[1].str() : "hf-trainer");
  } else if (starts_with(f, "litgpt")) {
    c.set("framework", "litgpt");
  } else if (contains(f, "torchtune")) {
    c.set("framework", "torchtune");
  } else if (contains(f, "peft")) {
    c.set("framework", "peft");
  } else {
    // A script's own loop (plain PyTorch, Accelerate, nanoGPT's train.py) sets nothing beyond what the row
    // states; anything else (DeepSpeed, FSDP, PyTorch Lightning's Trainer, Unsloth) needs a preset.
    static constexpr std::string_view kNoPreset[] = {"deepspeed", "fsdp", "lightning", "unsloth", "megatron", "colossal"};
    const bool preset_needed = std::any_of(std::begin(kNoPreset), std::end(kNoPreset),
                                           [&](std::string_view name) { return contains(f, name); });
    const bool own_loop = contains(f, "plain") || contains(f, "custom") || contains(f, "own loop") ||
                          starts_with(f, "accelerate") || contains(f, "nanogpt") || starts_with(f, "pytorch") ||
                          starts_with(f, "torch");
    if (preset_needed || !own_loop) missing.push_back(fmt::format("framework '{}' (no preset)", r.framework));
  }
  // A stated torch version names the era; otherwise a versioned framework preset carries its own, and an
  // old CUDA alone says torch 1.x.
  static const std::regex kTorch(R"((?:pytorch|torch)\s*(\d{1,3})\.(\d{1,3})\b)");
  static const std::regex kOldCuda(R"(cuda\s*(?:10\.|11\.[0-6]\b))");
  if (std::regex_search(v, m, kTorch)) {
    const int major = std::stoi(m[1].str()), minor = std::stoi(m[2].str());
    c.set("era", major >= 2 ? "torch2-cuda12" : minor <= 10 ? "torch1.10-cuda11" : "torch1-cuda11");
  } else if (std::regex_search(v, kOldCuda)) {
    const auto* framework = c.get("framework");
    if (!framework || framework->find('@') == std::string::npos) c.set("era", "torch1-cuda11");
  }
}

std::string model_file(const std::string& model) {
  std::string name = model;
  for (std::size_t at = name.find('/'); at != std::string::npos; at = name.find('/', at + 2)) name.replace(at, 1, "--");
  return name + ".json";
}

// The row's setup as command-line options, so that a row can be rerun by hand.
std::string flags_of(const plan::SetupChoices& c) {
  std::string out;
  for (const auto& [name, value] : c.values()) {
    const auto* spec = plan::find_option(name);
    const std::string cli = spec ? std::string(spec->cli) : name;
    // Booleans as the command line spells them: the flag, or its --no- form.
    const std::string flag = !spec || spec->kind != plan::OptionKind::Boolean ? fmt::format("{} {}", cli, value)
                             : value == "true"                                ? cli
                                                                              : "--no-" + cli.substr(2);
    out += fmt::format("{}{}", out.empty() ? "" : " ", flag);
  }
  return out;
}

// Whether every part of a catalogue name ("A100-80GB": a100, 80gb) stands as a word of the GPU text, so
// that "NVIDIA A100-SXM4-80GB" and "A100 (80 GB)" name the A100-80GB and "L40S" does not name the L4.
bool names_card(const std::string& gpu_text, const std::string& card) {
  static const std::regex kSpacedUnit(R"((\d)\s+gb)");
  const std::string g = std::regex_replace(lower(gpu_text), kSpacedUnit, "$1gb");
  const std::string name = lower(card);
  for (std::size_t start = 0; start < name.size();) {
    const std::size_t dash = std::min(name.find('-', start), name.size());
    const std::string part = name.substr(start, dash - start);
    bool found = false;
    for (std::size_t at = g.find(part); at != std::string::npos && !found; at = g.find(part, at + 1)) {
      const bool before = at == 0 || !std::isalnum(static_cast<unsigned char>(g[at - 1]));
      const std::size_t end = at + part.size();
      const bool after = end == g.size() || !std::isalnum(static_cast<unsigned char>(g[end]));
      found = before && after;
    }
    if (!part.empty() && !found) return false;
    start = dash + 1;
  }
  return true;
}

}  // namespace

// A catalogue card named in the row's GPU text, else the stated "NN GB" as GiB.
std::optional<plan::Card> card_of(const std::string& gpu) {
  const std::string g = lower(gpu);
  for (const auto& c : plan::default_cards())
    if (names_card(gpu, c.name)) return c;
  static const std::regex kGb(R"((\d+)\s*gb)");
  std::smatch m;
  if (!std::regex_search(g, m, kGb)) return std::nullopt;
  plan::Card c;
  c.name = gpu;
  c.memory_bytes = std::stoll(m[1].str()) << 30;
  c.dense_tflops = 1;  // make_plan prices a run; only the memory matters here
  c.bandwidth_gbps = 1;
  c.source = "the row's GPU";
  return c;
}


std::vector<PublishedRow> read_published(const fs::path& file) {
  Json j;
  try {
    j = Json::parse(read_text(file));
  } catch (const Json::exception& e) {
    throw Error(ErrorKind::InvalidInput, file.string(), std::string("invalid JSON: ") + e.what());
  }
  if (!j.is_array()) throw Error(ErrorKind::InvalidInput, file.string(), "must be a JSON list of rows");
  std::vector<PublishedRow> rows;
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& o = j[i];
    std::string where = fmt::format("{}: row {}", file.string(), i);
    if (!o.is_object()) throw Error(ErrorKind::InvalidInput, where, "must be an object");
    PublishedRow r;
    r.index = i;
    r.id = text_field(o, "id", where);
    where += " (" + r.id + ")";
    r.source = text_field(o, "source", where);
    r.model = text_field(o, "model", where);
    r.task_head = text_field(o, "task_head", where, false);
    r.mode = text_field(o, "mode", where);
    r.precision = text_field(o, "precision", where);
    r.optimizer = text_field(o, "optimizer", where);
    r.attention = text_field(o, "attention", where, false);
    r.framework = text_field(o, "framework", where, false);
    r.versions = text_field(o, "versions", where, false);
    r.gpu = text_field(o, "gpu", where, false);
    r.metric = text_field(o, "metric", where);
    r.notes = text_field(o, "notes", where, false);
    r.loss = text_field(o, "loss", where, false);
    const auto batch = int_field(o, "batch", where);
    if (!batch || *batch < 1) throw Error(ErrorKind::InvalidInput, where, "'batch' must be at least 1");
    r.batch = *batch;
    r.seq = int_field(o, "seq", where);
    r.image_size = int_field(o, "image_size", where);
    r.grad_accum = int_field(o, "grad_accum", where);
    if (o.contains("grad_checkpointing") && o["grad_checkpointing"].is_boolean())
      r.grad_checkpointing = o["grad_checkpointing"].get<bool>();
    if (o.contains("lora") && o["lora"].is_object()) {
      const auto& l = o["lora"];
      r.lora_rank = int_field(l, "r", where);
      if (l.contains("dropout") && l["dropout"].is_number()) r.lora_dropout = l["dropout"].get<double>();
      if (l.contains("targets") && l["targets"].is_array())
        for (const auto& t : l["targets"]) r.lora_targets.push_back(t.get<std::string>());
    }
    r.oom = o.value("oom", false) == true;
    r.value_bytes = int_field(o, "value_bytes", where);
    if (!r.oom && !r.value_bytes) throw Error(ErrorKind::InvalidInput, where, "neither 'value_bytes' nor 'oom'");
    rows.push_back(std::move(r));
  }
  return rows;
}

RowSetup row_setup(const PublishedRow& r, const std::string& architecture) {
  RowSetup s;
  auto& c = s.choices;
  set_software(c, r, s.missing);
  if (r.mode == "qlora") c.set("qlora", "true");
  else if (r.mode != "full" && r.mode != "lora") s.missing.push_back(fmt::format("mode '{}'", r.mode));
  set_precision(c, r, s.missing);
  set_optimizer(c, r.optimizer, s.missing);
  // FlashAttention-2 and xformers' memory-efficient kernel keep what SDPA's flash kernel keeps (the output and
  // its log-sum-exp); SDPA's math backend keeps the probabilities, as eager attention does.
  const std::string attention = lower(r.attention);
  if (starts_with(attention, "eager") || contains(attention, "math")) c.set("attention", "eager");
  else if (starts_with(attention, "sdpa") || contains(attention, "flash") || starts_with(attention, "fa2") ||
           contains(attention, "xformers") || contains(attention, "efficient") || attention.empty())
    c.set("attention", "sdpa");
  else s.missing.push_back(fmt::format("attention '{}'", r.attention));
  c.set("batch", std::to_string(r.batch));
  if (r.grad_checkpointing) c.set("grad_checkpointing", *r.grad_checkpointing ? "true" : "false");
  if (r.grad_accum && *r.grad_accum > 1) c.set("grad_accum", std::to_string(*r.grad_accum));
  if (r.lora_rank) c.set("lora_rank", std::to_string(*r.lora_rank));
  if (r.lora_dropout) c.set("lora_dropout", plan::option_text(*r.lora_dropout));
  if (!r.lora_targets.empty()) c.set_list("lora_targets", r.lora_targets);
  // The loss: the row's own field, else what its notes say the script computed, else the framework's.
  if (!r.loss.empty()) c.set("loss", r.loss);
  else if (contains(r.notes, "logits.sum()")) c.set("loss", "logits-sum");

  // torch's counters under their own names, torchtune's (peak_memory_alloc / _active / _reserved, from
  // torch.cuda.memory_stats) and in words; nvidia-smi and NVML read the whole device.
  std::string m = lower(r.metric);
  std::replace(m.begin(), m.end(), '_', ' ');
  if (contains(m, "nvidia-smi") || contains(m, "nvml")) s.metric = "device";
  else if (contains(m, "reserved")) s.metric = "reserved";
  else if (contains(m, "allocated") || contains(m, "memory alloc") || contains(m, "active")) s.metric = "allocated";
  else s.missing.push_back(fmt::format("metric '{}'", r.metric));

  // The head the row trained ("ForSequenceClassification(...)", "AutoModelForCausalLM", "BertForMaskedLM") on
  // the config's own model prefix.
  static const std::regex kHead(R"((For[A-Z][A-Za-z0-9]+))");
  std::smatch h;
  const auto for_at = architecture.find("For");
  if (std::regex_search(r.task_head, h, kHead) && for_at != std::string::npos)
    s.class_name = architecture.substr(0, for_at) + h[1].str();
  return s;
}

bool PublishedEvaluation::targets_met(const PublishedTargets& t) const {
  return overall.inexpressible <= t.inexpressible && overall.under10 <= t.under10 &&
         overall.oom_called_fit <= t.oom_called_fit && overall.errors && overall.errors->median_abs_percent <= t.median &&
         overall.errors->p90_abs_percent <= t.p90;
}

std::string PublishedEvaluation::last_line() const {
  const auto& o = overall;
  return fmt::format("published: rows {}, planned {}, inexpressible {}, median {:.1f}%, p90 {:.1f}%, under10 {}, "
                     "oom_called_fit {}",
                     o.rows, o.planned, o.inexpressible, o.errors ? o.errors->median_abs_percent : 0.0,
                     o.errors ? o.errors->p90_abs_percent : 0.0, o.under10, o.oom_called_fit);
}

PublishedEvaluation evaluate_published(const std::vector<PublishedRow>& rows, const std::vector<fs::path>& config_dirs,
                                       const plan::Runtime& runtime) {
  PublishedEvaluation ev;
  std::map<std::string, report::Report> graphs;
  for (const auto& row : rows) {
    PublishedResult res;
    res.row = &row;
    res.source = row.framework.empty() ? row.source : row.framework;
    fs::path config;
    for (const auto& dir : config_dirs) {
      std::error_code ec;
      if (fs::is_regular_file(dir / model_file(row.model), ec)) {
        config = dir / model_file(row.model);
        break;
      }
    }
    std::string architecture;
    if (config.empty()) {
      res.missing.push_back(fmt::format("config of '{}' (looked for {})", row.model, model_file(row.model)));
    } else {
      const auto j = Json::parse(read_text(config), nullptr, false);
      if (j.is_object() && j.contains("architectures") && j["architectures"].is_array() && !j["architectures"].empty() &&
          j["architectures"][0].is_string())
        architecture = j["architectures"][0].get<std::string>();
    }
    RowSetup setup = row_setup(row, architecture);
    res.missing.insert(res.missing.end(), setup.missing.begin(), setup.missing.end());
    res.options = flags_of(setup.choices);
    const auto card = card_of(row.gpu);
    if (row.oom && !card) res.missing.push_back(fmt::format("the memory of GPU '{}'", row.gpu));
    if (res.missing.empty()) {
      try {
        const std::string key = fmt::format("{}\n{}\n{}", config.string(), setup.class_name, row.seq.value_or(0));
        auto it = graphs.find(key);
        if (it == graphs.end()) {
          resolve::ResolveOptions ro;
          ro.offline = true;
          pipeline::TraceOptions to;
          to.build.class_name = setup.class_name;
          to.build.seq = row.seq;
          to.build.image_size = row.image_size;
          to.read_checkpoint = false;
          to.lint = false;
          it = graphs.emplace(key, pipeline::trace(resolve::resolve(config.string(), ro), to)).first;
        }
        plan::PlanOptions o = plan::plan_options(setup.choices, runtime);
        if (card) o.cards = {*card};
        const auto p = plan::make_plan(it->second.graph, o);
        const bool full = row.mode == "full";
        const auto& m = full ? p.full : p.lora;
        res.planned = setup.metric == "allocated" ? m.peak_allocated : setup.metric == "reserved" ? m.reserved : m.device_bytes;
        res.peak_phase = m.peak_phase;
        if (card) res.predicted_fits = (full ? p.cards.at(0).full_max_batch : p.cards.at(0).lora_max_batch) >= row.batch;
        if (row.value_bytes)
          res.error_percent = percent_error(static_cast<double>(*res.planned), static_cast<double>(*row.value_bytes));
      } catch (const Error& e) {
        res.missing.push_back(fmt::format("the model does not plan: {}", e.what()));
      }
    }
    ev.results.push_back(std::move(res));
  }

  std::map<std::string, std::vector<double>> errors;
  std::vector<double> all;
  std::map<std::string, PublishedSummary> sources;
  auto count = [](PublishedSummary& s, const PublishedResult& r) {
    ++s.rows;
    if (!r.missing.empty()) ++s.inexpressible;
    if (r.planned) ++s.planned;
    if (r.error_percent && *r.error_percent < -10.0) ++s.under10;
    if (r.row->oom && r.predicted_fits.value_or(false)) ++s.oom_called_fit;
  };
  for (const auto& r : ev.results) {
    auto& s = sources[r.source];
    s.source = r.source;
    count(s, r);
    count(ev.overall, r);
    if (r.error_percent) {
      errors[r.source].push_back(*r.error_percent);
      all.push_back(*r.error_percent);
    }
  }
  for (auto& [name, s] : sources) {
    s.errors = summarize(errors[name]);
    ev.sources.push_back(s);
  }
  ev.overall.source = "overall";
  ev.overall.errors = summarize(all);
  return ev;
}

std::string render_published_text(const PublishedEvaluation& ev) {
  auto gb = [](std::int64_t b) { return fmt::format("{:.2f} GB", static_cast<double>(b) / 1e9); };
  std::string out = "Published peak-memory measurements against the planner (errors: planned vs measured)\n\n";
  for (const auto& r : ev.results) {
    const auto& row = *r.row;
    if (!r.missing.empty()) {
      out += fmt::format("  {:<48} cannot be expressed: {}\n", row.id, fmt::join(r.missing, "; "));
      continue;
    }
    const std::string measured = row.oom ? std::string("OOM") : gb(*row.value_bytes);
    const std::string verdict = r.error_percent ? fmt::format("{:+.1f} %", *r.error_percent)
                                : row.oom       ? (r.predicted_fits.value_or(false) ? "called fits" : "called OOM")
                                                : "";
    out += fmt::format("  {:<48} {:>10} measured ({}), planned {} (peak {}): {}\n      {}\n", row.id, measured,
                       row.metric, gb(*r.planned), r.peak_phase, verdict, r.options);
  }
  auto summary = [](const PublishedSummary& s) {
    return fmt::format("{}: rows {}, planned {}, inexpressible {}, median {}, p90 {}, under10 {}, oom_called_fit {}",
                       s.source, s.rows, s.planned, s.inexpressible,
                       s.errors ? fmt::format("{:.1f}%", s.errors->median_abs_percent) : "-",
                       s.errors ? fmt::format("{:.1f}%", s.errors->p90_abs_percent) : "-", s.under10, s.oom_called_fit);
  };
  out += "\nBy source (the row's framework):\n";
  for (const auto& s : ev.sources) out += "  " + summary(s) + "\n";
  std::map<std::string, std::vector<std::string>> missing;
  for (const auto& r : ev.results)
    for (const auto& m : r.missing) missing[m].push_back(r.row->id);
  if (!missing.empty()) {
    out += "\nInexpressible rows, by what is missing:\n";
    for (const auto& [what, ids] : missing) out += fmt::format("  {}: {}\n", what, fmt::join(ids, ", "));
  }
  out += "\nNo constant is fitted to these rows.\n";
  out += ev.last_line() + "\n";
  return out;
}

}  // namespace neurarch::calibration
