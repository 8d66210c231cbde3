// Every real published config we hold (../shared/corpus/configs, ../shared/groundtruth/real) and every
// real-shaped config of the committed reference fixtures (tests/data/reference/*/*--*.json) goes the whole way a
// user's does: trace with --plan and the verifier, then the text, JSON, Markdown and HTML renderers. A supported
// model type must never be refused or crash; an unsupported one must be refused with neurarch's one-line error.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "families/family.hpp"
#include "plan/plan.hpp"
#include "render/render.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

namespace neurarch {
namespace {

namespace fs = std::filesystem;

struct RealConfig {
  std::string name;  ///< where it came from, for the test's name
  nlohmann::json config;
};

nlohmann::json read_json(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(standardize_python_json(text.str()));
}

std::vector<RealConfig> real_configs() {
  std::vector<RealConfig> out;
  const fs::path source(NEURARCH_SOURCE_DIR);
  const auto add_folder = [&](const fs::path& dir, const std::string& tag, bool wrapped, bool real_shaped_only) {
    if (!fs::is_directory(dir)) return;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      if (real_shaped_only && f.stem().string().find("--") == std::string::npos) continue;
      auto j = read_json(f);
      if (wrapped) {
        if (!j.contains("config")) continue;
        auto config = j["config"];
        if (!config.contains("model_type") && j.contains("model_type")) config["model_type"] = j["model_type"];
        j = config;
      }
      out.push_back({tag + "_" + f.stem().string(), std::move(j)});
    }
  };
  add_folder(source / ".." / "shared" / "corpus" / "configs", "corpus", false, false);
  add_folder(source / ".." / "shared" / "groundtruth" / "real", "groundtruth", true, false);
  add_folder(source / "tests" / "data" / "reference", "fixture", true, true);
  return out;
}

class RealConfigRobustness : public ::testing::TestWithParam<RealConfig> {};

TEST_P(RealConfigRobustness, TracesPlansLintsAndRendersEveryFormat) {
  const RealConfig& rc = GetParam();
  const fs::path dir = fs::temp_directory_path() / ("neurarch_real_config_" + rc.name);
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << rc.config.dump(1);
  const std::string type = rc.config.value("model_type", "");
  const bool supported = families::find_family(type) != nullptr;
  try {
    resolve::ResolveOptions ro;
    ro.offline = true;
    ro.hub_cache = fs::temp_directory_path() / "neurarch_real_config_no_cache";
    const auto model = resolve::resolve((dir / "config.json").string(), ro);
    pipeline::TraceOptions to;
    plan::PlanOptions po;
    po.full.mode = plan::Mode::Full;
    po.lora.mode = plan::Mode::LoRA;
    to.plan = po;
    to.lint = true;
    const auto r = pipeline::trace(model, to);
    EXPECT_TRUE(supported) << type << " traced though the registry does not list it";
    EXPECT_TRUE(r.plan.has_value());
    EXPECT_FALSE(render::text(r).empty());
    EXPECT_TRUE(nlohmann::json::accept(render::json(r)));
    EXPECT_FALSE(render::markdown(r).empty());
    const auto html = render::html(r);
    EXPECT_EQ(html.rfind("<article class=\"neurarch\">", 0), 0u);
  } catch (const Error& e) {
    // Only a type we do not build may be refused, and then as Unsupported naming the model type.
    EXPECT_FALSE(supported) << type << " refused: " << e.what();
    EXPECT_EQ(e.kind(), ErrorKind::Unsupported) << e.what();
  }
  fs::remove_all(dir);
}

std::string case_name(const ::testing::TestParamInfo<RealConfig>& info) {
  std::string name = info.param.name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Published, RealConfigRobustness, ::testing::ValuesIn(real_configs()), case_name);

}  // namespace
}  // namespace neurarch
