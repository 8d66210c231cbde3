#include "cli/validate_published.hpp"

#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "calibration/published.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"
#include "plan/hardware.hpp"

namespace neurarch::cli {

int run_validate_published(const std::string& rows_file, std::vector<std::string> config_dirs,
                           const std::string& runtime_file, std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  try {
    const fs::path folder = fs::path(rows_file).parent_path();
    // The rows' own configs/, then the corpus the published folder's README points to.
    if (config_dirs.empty()) config_dirs = {(folder / "configs").string(), (folder / "../../corpus/configs").string()};
    std::vector<fs::path> dirs(config_dirs.begin(), config_dirs.end());
    plan::Runtime runtime = plan::default_runtime();
    if (!runtime_file.empty()) {
      std::ifstream in(runtime_file, std::ios::binary);
      if (!in) throw Error(ErrorKind::NotFound, runtime_file, "cannot open");
      std::stringstream text;
      text << in.rdbuf();
      runtime = plan::parse_runtime(text.str(), runtime_file);
    }
    const auto rows = calibration::read_published(rows_file);
    const auto ev = calibration::evaluate_published(rows, dirs, runtime);
    out << calibration::render_published_text(ev) << std::flush;
    return ev.targets_met() ? 0 : 1;
  } catch (const Error& e) {
    err << "neurarch-trace validate: error: " << e.what() << "\n";
    return exit_code(e.kind());
  }
}

}  // namespace neurarch::cli
