// GPT-SW3: AutoConfig maps model_type "gpt-sw3" to GPT2Config, so its ground-truth cases (saved with
// model_type "gpt2") must build unchanged when the config names "gpt-sw3" instead.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/groundtruth.hpp"

using namespace neurarch;
namespace fs = std::filesystem;

TEST(GptSw3GroundTruth, EveryCaseMatchesToTheTensorUnderItsOwnModelType) {
  auto root = neurarch::testing::groundtruth_root();
  NEURARCH_REQUIRE(root && fs::is_directory(*root / "defaults" / "gpt-sw3"), "../shared/groundtruth not found");
  const fs::path scratch = fs::temp_directory_path() / fmt::format("neurarch_gpt_sw3_{}", ::getpid());
  fs::create_directories(scratch);
  int cases = 0;
  for (const auto& e : fs::directory_iterator(*root / "defaults" / "gpt-sw3")) {
    if (e.path().extension() != ".json") continue;
    std::ifstream file(e.path());
    std::stringstream text;
    text << file.rdbuf();
    auto j = nlohmann::json::parse(standardize_python_json(text.str()));
    j["config"]["model_type"] = "gpt-sw3";
    const fs::path renamed = scratch / e.path().filename();
    std::ofstream(renamed) << j.dump();
    SCOPED_TRACE(e.path().string());
    EXPECT_EQ(neurarch::testing::compare_with_groundtruth({renamed, "gpt-sw3", j["class"].get<std::string>()}), "");
    ++cases;
  }
  fs::remove_all(scratch);
  EXPECT_EQ(cases, 3);
}

TEST(GptSw3Graph, BuildsGpt2UnderItsOwnModelType) {
  auto built = model::build_model(Config::parse(R"({"model_type": "gpt-sw3", "n_embd": 64, "n_layer": 2,
      "n_head": 4, "vocab_size": 100, "n_positions": 128, "architectures": ["GPT2LMHeadModel"]})",
                                                "config.json"));
  ASSERT_TRUE(built.graph.forward.ok) << built.graph.forward.reason;
  EXPECT_EQ(built.model_type, "gpt-sw3");
  EXPECT_EQ(built.graph.find_tensor("lm_head.weight")->tied_to, "transformer.wte.weight");
}
