#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

TEST(GptNeoXJapaneseFamily, OnlyTheLastLayerCarriesAnAttentionBias) {
  nlohmann::json config{{"model_type", "gpt_neox_japanese"}, {"hidden_size", 64}, {"num_hidden_layers", 3},
                        {"num_attention_heads", 4}, {"vocab_size", 100}};
  const auto m = model::build_model(Config(config, "config.json"), {});
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("layers.0.attention.dense_bias"), nullptr);
  EXPECT_EQ(g.find_tensor("layers.1.attention.dense_bias"), nullptr);
  ASSERT_NE(g.find_tensor("layers.2.attention.dense_bias"), nullptr);
  EXPECT_EQ(g.find_tensor("layers.2.attention.dense_bias")->shape, (graph::Shape{64}));
  EXPECT_EQ(g.find_tensor("layers.2.attention.dense.bias"), nullptr);
  // intermediate_multiple_size (4) times the width, bias-free.
  EXPECT_EQ(g.find_tensor("layers.0.mlp.dense_h_to_4h.weight")->shape, (graph::Shape{256, 64}));
  EXPECT_EQ(g.find_tensor("layers.0.mlp.dense_h_to_4h.bias"), nullptr);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
