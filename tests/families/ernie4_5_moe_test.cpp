#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Ernie45Moe, "ernie4_5_moe")

#include "core/config.hpp"
#include "model/build.hpp"

TEST(Ernie45MoeParameters, DefaultsAreTwentyOneBWithThreeBActive) {
  // The class defaults are ERNIE-4.5-21B-A3B: 21B total, 3B active per token.
  auto g = neurarch::model::build_model(neurarch::Config::parse(
      R"({"model_type": "ernie4_5_moe", "architectures": ["Ernie4_5_MoeForCausalLM"]})", "config.json")).graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.saved_scalars(), 21'825'437'888);
  // Layer 0 is dense; layers 1-27 route 6 of 64 experts of 3 x 1536 x 2560.
  EXPECT_NE(g.find_tensor("model.layers.0.mlp.gate_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.27.mlp.moe_statics.e_score_correction_bias")->shape,
            (neurarch::graph::Shape{1, 64}));
  EXPECT_EQ(g.active_parameter_count(), 21'825'437'888 - 27LL * 58 * 3 * 1536 * 2560);
}
