// The verifier as a whole: the rule table, the output role, and the bar that published models
// pass: zero errors, and exactly the warnings we have reviewed and would defend.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "families/family.hpp"
#include "lint_test_support.hpp"

namespace fs = std::filesystem;
using namespace lint_test;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

TEST(LintDebug, PrintCatalogue) {
  for (const auto& e : fs::directory_iterator(fs::path(NEURARCH_SOURCE_DIR) / "data" / "catalogue")) {
    auto cfg = json::parse(slurp(e.path()));
    if (!neurarch::families::find_family(cfg.value("model_type", ""))) continue;
    for (const auto& f : lint(cfg))
      std::cout << e.path().filename().string() << " " << f.severity << " [" << f.rule << "] " << f.node << ": "
                << f.message << " -- fix: " << f.fix << "\n";
  }
}
