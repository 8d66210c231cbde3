#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Config tiny(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "gpt2", "n_embd": 64, "n_layer": 2, "n_head": 4, "vocab_size": 100,
                           "n_positions": 128)" + extra + "}",
                       "config.json");
}

}  // namespace

TEST(Gpt2Forward, SequencePastLearnedPositionsFails) {
  BuildOptions options;
  options.seq = 129;
  auto g = build_model(tiny(), options).graph;
  ASSERT_FALSE(g.forward.ok);
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(g.forward.node)).name, "Position_Embedding");
  options.seq = 128;
  EXPECT_TRUE(build_model(tiny(), options).graph.forward.ok);
}

TEST(Gpt2Forward, HiddenNotDivisibleByHeadsFails) {
  auto g = build_model(tiny(R"(, "n_head": 5)")).graph;
  ASSERT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("not divisible"), std::string::npos) << g.forward.reason;
}

TEST(Gpt2Defaults, InnerIsFourTimesHiddenAndLmHeadIsTied) {
  BuildOptions options;
  options.class_name = "GPT2LMHeadModel";
  auto g = build_model(tiny(R"(, "n_inner": null)"), options).graph;
  const auto* fc = g.find_tensor("transformer.h.0.mlp.c_fc.weight");
  ASSERT_NE(fc, nullptr);
  EXPECT_EQ(fc->shape, (neurarch::graph::Shape{64, 256}));
  const auto* head = g.find_tensor("lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_FALSE(head->saved());
  EXPECT_EQ(g.nodes.back().out, (neurarch::graph::Shape{128, 100}));
}
