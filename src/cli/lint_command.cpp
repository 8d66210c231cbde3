#include "cli/lint_command.hpp"

#include "cli/output.hpp"

#include <cstdlib>
#include <memory>
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

namespace neurarch::cli {
namespace {


struct Checked {
  std::string model;
  std::string model_type;
  std::string class_name;
  std::vector<report::Finding> findings;
  std::string failure;  ///< why the model could not be traced; findings are empty then
};

Checked check(const std::string& spec, const lint::Options& options, int& failure_code) {
  Checked c{spec, {}, {}, {}, {}};
  try {
    resolve::ResolveOptions ro;
    ro.offline = std::getenv("HF_HUB_OFFLINE") != nullptr;
    const auto model = resolve::resolve(spec, ro);
    pipeline::TraceOptions to;
    to.build.seq = options.seq;
    // Findings never depend on checkpoint headers; skipping them keeps a CI sweep fast.
    to.read_checkpoint = false;
    const auto r = pipeline::trace(model, to);
    c.model_type = r.model.model_type;
    c.class_name = r.model.class_name;
    c.findings = lint::run(r, options);
  } catch (const Error& e) {
    c.failure = e.what();
    if (failure_code == 0) failure_code = exit_code(e.kind());
  } catch (const std::exception& e) {
    c.failure = std::string("internal error: ") + e.what();
    if (failure_code == 0) failure_code = 70;
  }
  return c;
}

std::string counts(const std::vector<report::Finding>& findings) {
  int n[3] = {0, 0, 0};
  for (const auto& f : findings)
    if (int rank = lint::severity_rank(f.severity); rank >= 0) ++n[rank];
  return fmt::format("{} error, {} warn, {} info", n[2], n[1], n[0]);
}

void print_text(const Checked& c, std::ostream& out) {
  if (!c.failure.empty()) {
    out << c.model << ": cannot trace: " << c.failure << "\n";
    return;
  }
  out << fmt::format("{} ({}, {}): {}\n", c.model, c.model_type, c.class_name,
                     c.findings.empty() ? std::string("nothing to report") : counts(c.findings));
  for (const auto& f : c.findings)
    out << fmt::format("  {} [{}] {}{} — fix: {}\n", f.severity, f.rule, f.node.empty() ? "" : f.node + ": ",
                       f.message, f.fix);
}

nlohmann::json to_json(const Checked& c) {
  nlohmann::json j{{"model", c.model}};
  if (!c.failure.empty()) {
    j["error"] = c.failure;
    return j;
  }
  j["model_type"] = c.model_type;
  j["class"] = c.class_name;
  auto findings = nlohmann::json::array();
  for (const auto& f : c.findings)
    findings.push_back({{"rule", f.rule},
                        {"severity", f.severity},
                        {"node", f.node.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.node)},
                        {"message", f.message},
                        {"fix", f.fix}});
  j["findings"] = std::move(findings);
  return j;
}

}  // namespace

int run_lint_command(const std::vector<std::string>& models, const std::string& fail_on, const std::string& format,
                     std::ostream& out, std::ostream& err, const lint::Options& options) {
  const int threshold = lint::severity_rank(fail_on.empty() ? "error" : fail_on);
  if (threshold < 0) {
    err << "neurarch-trace lint: error: --fail-on must be error, warn or info, not '" << fail_on << "'\n";
    return 2;
  }
  if (format != "text" && format != "json") {
    err << "neurarch-trace lint: error: --format must be text or json, not '" << format << "'\n";
    return 2;
  }
  if (models.empty()) {
    err << "neurarch-trace lint: error: name at least one MODEL\n";
    return 2;
  }

  int failure_code = 0;
  bool tripped = false;
  auto all = nlohmann::json::array();
  for (const auto& spec : models) {
    const Checked c = check(spec, options, failure_code);
    for (const auto& f : c.findings)
      if (lint::severity_rank(f.severity) >= threshold) tripped = true;
    if (!c.failure.empty()) err << "neurarch-trace lint: " << spec << ": " << c.failure << "\n";
    if (format == "json")
      all.push_back(to_json(c));
    else
      print_text(c, out);
  }
  if (format == "json") out << all.dump(2) << "\n";
  out << std::flush;
  if (failure_code != 0) return failure_code;
  return tripped ? 1 : 0;
}

Command add_lint_command(CLI::App& app) {
  auto* sub = app.add_subcommand("lint", "run the verifier over models; non-zero exit at or above --fail-on");
  struct LintArgs {
    std::vector<std::string> models;
    std::string fail_on = "error", format = "text";
    std::optional<std::int64_t> seq;
    bool lora = false;
  };
  auto a = std::make_shared<LintArgs>();
  sub->add_option("models", a->models, "model ids, config.json files or folders")->required();
  sub->add_option("--fail-on", a->fail_on, "error | warn | info")->check(CLI::IsMember({"error", "warn", "info"}));
  sub->add_option("--format,-f", a->format, "text | json")->check(CLI::IsMember({"text", "json"}));
  sub->add_option("--seq", a->seq, "the sequence length you plan to train at");
  sub->add_flag("--lora", a->lora, "you plan LoRA fine-tuning");
  return {sub, [a](std::ostream& out, std::ostream& err) {
            return run_lint_command(a->models, a->fail_on, a->format, out, err, {a->seq, a->lora});
          }};
}

}  // namespace neurarch::cli
