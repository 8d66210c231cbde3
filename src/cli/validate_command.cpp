#include "cli/validate_command.hpp"

#include "cli/output.hpp"
#include "cli/validate_published.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "calibration/render.hpp"
#include "calibration/cpu_rows.hpp"
#include "calibration/validate.hpp"
#include "cli/validate_cpu.hpp"
#include "core/error.hpp"
#include "plan/hardware.hpp"

namespace neurarch::cli {
namespace {
namespace fs = std::filesystem;


// calibration/measured/ -> calibration/: rows name their configs relative to the folder above.
fs::path default_config_root(const fs::path& dir) {
  fs::path p = dir.lexically_normal();
  if (!p.has_filename()) p = p.parent_path();
  fs::path root = p.parent_path();
  return root.empty() ? fs::path(".") : root;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error(ErrorKind::NotFound, path, "cannot open");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

struct ValidateArgs {
  std::string dir, format = "text", config_root, runtime_file;
  std::vector<std::string> config_dirs;
};

int run_validate(const ValidateArgs& args, std::ostream& out, std::ostream& err) {
  const std::string &dir = args.dir, &format = args.format, &config_root = args.config_root,
                    &runtime_file = args.runtime_file;
  const std::vector<std::string>& config_dirs = args.config_dirs;
  // A folder of CPU-measured steps (tools/measure_cpu writes JSON lines) is judged phase by phase.
  if (calibration::has_cpu_rows(dir)) return run_validate_cpu(dir, config_root, runtime_file, out, err);

  if (fs::is_regular_file(dir) && fs::path(dir).extension() == ".json")
    return run_validate_published(dir, config_dirs, runtime_file, out, err);
  try {
    calibration::EvaluateOptions options;
    options.config_root = config_root.empty() ? default_config_root(dir) : fs::path(config_root);
    options.runtime = runtime_file.empty() ? plan::default_runtime() : plan::parse_runtime(read_text(runtime_file), runtime_file);
    auto set = calibration::load_measured(dir);
    if (!set.errors.empty()) {
      for (const auto& e : set.errors) err << "neurarch-trace validate: error: " << e << "\n";
      return 2;
    }
    std::vector<std::string> errors;
    std::optional<ErrorKind> kind;
    auto ev = calibration::evaluate(set.rows, options, errors, kind);
    if (!errors.empty()) {
      for (const auto& e : errors) err << "neurarch-trace validate: error: " << e << "\n";
      return exit_code(*kind);
    }
    ev.files = set.files;
    if (ev.results.empty()) {
      const std::string why = fmt::format(
          "{} holds no measured rows to compare ({} CSV files, {} rows, {} of them failed runs): nothing was measured "
          "yet; run calibration/measure.py on a GPU (README, section Calibration)",
          dir, set.files, set.rows.size(), ev.errored);
      if (format == "json")
        out << nlohmann::json{{"schema", calibration::kReportSchema}, {"dir", dir}, {"files", set.files},
                              {"rows", {{"total", set.rows.size()}, {"compared", 0}}}, {"no_measured_rows", true},
                              {"message", why}}
                   .dump(2)
            << "\n";
      else
        out << "neurarch-trace validate: " << why << "\n";
      return kValidateNoRowsExit;
    }
    if (format == "json")
      out << calibration::render_json(ev, dir).dump(2) << "\n";
    else
      out << calibration::render_text(ev, dir);
    out << std::flush;
    return ev.targets_met() ? 0 : 1;
  } catch (const Error& e) {
    err << "neurarch-trace validate: error: " << e.what() << "\n";
    return exit_code(e.kind());
  } catch (const std::exception& e) {
    err << "neurarch-trace validate: internal error: " << e.what() << "\n";
    return 70;
  }
}

}  // namespace

Command add_validate_command(CLI::App& app) {
  auto* sub = app.add_subcommand("validate", "the memory planner against measured fine-tuning runs (calibration/measure.py)");
  auto a = std::make_shared<ValidateArgs>();
  sub->add_option("dir", a->dir,
                  "folder of measured CSV files (calibration/measured/), or a JSON list of published rows "
                  "(measurements/published/rows.json)")
      ->required();
  sub->add_option("--configs", a->config_dirs,
                  "published rows: folders holding the models' config.json as ORG--NAME.json (default: the rows' "
                  "configs/ folder and ../../corpus/configs)");
  sub->add_option("--format,-f", a->format, "text | json")->check(CLI::IsMember({"text", "json"}));
  sub->add_option("--config-root", a->config_root, "folder the rows' config paths are relative to (default: DIR/..)");
  sub->add_option("--runtime", a->runtime_file, "runtime constants JSON (default: the bundled data/runtime.json)");
  return {sub, [a](std::ostream& out, std::ostream& err) { return run_validate(*a, out, err); }};
}

}  // namespace neurarch::cli
