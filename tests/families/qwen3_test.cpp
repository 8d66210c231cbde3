#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

TEST(Qwen3Graph, QkNormsArePerHeadAndHeadDimDefaultsTo128) {
  auto g = neurarch::model::build_model(
               neurarch::Config::parse(R"({"model_type": "qwen3", "hidden_size": 64, "intermediate_size": 128,
                                           "num_hidden_layers": 1, "num_attention_heads": 4,
                                           "num_key_value_heads": 2, "vocab_size": 100})",
                                       "config.json"))
               .graph;
  EXPECT_TRUE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("layers.0.self_attn.q_norm.weight")->shape, (neurarch::graph::Shape{128}));
  EXPECT_EQ(g.find_tensor("layers.0.self_attn.q_proj.weight")->shape, (neurarch::graph::Shape{512, 64}));
  EXPECT_EQ(g.find_tensor("layers.0.self_attn.k_proj.weight")->shape, (neurarch::graph::Shape{256, 64}));
}
