// CTRL: every ground-truth class, and its fixed sinusoidal table that owns no tensor but bounds the length.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(CtrlGraph, SequencePastTheSinusoidalTableCannotRun) {
  const auto config = Config::parse(R"({"architectures": ["CTRLLMHeadModel"], "model_type": "ctrl", "n_layer": 2,
      "n_positions": 64, "n_embd": 128, "n_head": 4, "dff": 256, "vocab_size": 500})",
                                    "config.json");
  model::BuildOptions fits;
  fits.seq = 64;
  auto g = model::build_model(config, fits).graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "transformer.w.weight");
  EXPECT_EQ(g.find_tensor("lm_head.bias")->shape, (graph::Shape{500}));

  model::BuildOptions longer;
  longer.seq = 65;
  auto too_long = model::build_model(config, longer).graph;
  EXPECT_FALSE(too_long.forward.ok);
  EXPECT_NE(too_long.forward.reason.find("sinusoidal"), std::string::npos);
}
