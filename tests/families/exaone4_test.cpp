#include <vector>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;

std::vector<std::int64_t> windows(const std::string& extra) {
  auto g = build_model(Config::parse(R"({"model_type": "exaone4", "hidden_size": 64, "intermediate_size": 128,
                                          "num_hidden_layers": 8, "num_attention_heads": 4, "vocab_size": 100,
                                          "sliding_window": 128)" +
                                         extra + "}",
                                     "config.json"))
               .graph;
  std::vector<std::int64_t> out;
  for (const auto& n : g.nodes)
    if (n.attention) out.push_back(n.attention->window);
  return out;
}

}  // namespace

TEST(Exaone4Graph, IntegerPatternMakesEveryNthLayerGlobal) {
  EXPECT_EQ(windows(R"(, "sliding_window_pattern": 4)"), (std::vector<std::int64_t>{128, 128, 128, 0, 128, 128, 128, 0}));
}

TEST(Exaone4Graph, StringPatternOfLocalAndGlobalLettersRepeatsAndEndsGlobal) {
  // EXAONE-4.0-32B writes "LLLG"; the last layer is global whatever the pattern says.
  EXPECT_EQ(windows(R"(, "sliding_window_pattern": "LLLG")"),
            (std::vector<std::int64_t>{128, 128, 128, 0, 128, 128, 128, 0}));
  EXPECT_EQ(windows(R"(, "sliding_window_pattern": "LLL")"),
            (std::vector<std::int64_t>{128, 128, 128, 128, 128, 128, 128, 0}));
}

TEST(Exaone4Graph, LayerTypesWinOverThePattern) {
  EXPECT_EQ(windows(R"(, "sliding_window_pattern": "LLLG", "layer_types": ["full_attention", "sliding_attention",
            "full_attention", "sliding_attention", "full_attention", "sliding_attention", "full_attention",
            "sliding_attention"])"),
            (std::vector<std::int64_t>{0, 128, 0, 128, 0, 128, 0, 128}));
}

TEST(Exaone4Graph, PatternWithOtherLettersIsRefusedNamingTheKey) {
  try {
    windows(R"(, "sliding_window_pattern": "LXG")");
    FAIL() << "accepted";
  } catch (const neurarch::Error& e) {
    EXPECT_NE(std::string(e.what()).find("sliding_window_pattern"), std::string::npos) << e.what();
  }
}
