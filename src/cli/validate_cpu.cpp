#include "cli/validate_cpu.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "calibration/cpu_validate.hpp"
#include "cli/output.hpp"
#include "core/error.hpp"

namespace neurarch::cli {

int run_validate_cpu(const std::string& dir, const std::string& config_root, const std::string& profile_file,
                     std::ostream& out, std::ostream& err) {
  try {
    calibration::CpuProfile profile = calibration::default_cpu_profile();
    if (!profile_file.empty()) {
      std::ifstream f(profile_file, std::ios::binary);
      if (!f) throw Error(ErrorKind::NotFound, profile_file, "cannot open");
      std::stringstream ss;
      ss << f.rdbuf();
      profile = calibration::parse_cpu_profile(ss.str(), profile_file);
    }
    auto set = calibration::load_cpu_rows(dir);
    if (!set.errors.empty()) {
      for (const auto& e : set.errors) err << "neurarch-trace validate: error: " << e << "\n";
      return exit_code(ErrorKind::InvalidInput);
    }
    // Rows name their configs relative to the folder that holds them.
    const std::filesystem::path root = std::filesystem::path(config_root.empty() ? dir : config_root);
    std::vector<std::string> errors;
    std::optional<ErrorKind> kind;
    const auto ev = calibration::evaluate_cpu(set.rows, root, profile, errors, kind);
    if (!errors.empty()) {
      for (const auto& e : errors) err << "neurarch-trace validate: error: " << e << "\n";
      return exit_code(*kind);
    }
    out << calibration::render_cpu_text(ev, dir, true) << std::flush;
    return ev.targets_met() ? 0 : 1;
  } catch (const Error& e) {
    err << "neurarch-trace validate: error: " << e.what() << "\n";
    return exit_code(e.kind());
  }
}

}  // namespace neurarch::cli
