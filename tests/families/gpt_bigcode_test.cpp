#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

TEST(GptBigcodeGraph, MultiQueryIsOneSharedKvHead) {
  auto g = neurarch::model::build_model(
               neurarch::Config::parse(R"({"model_type": "gpt_bigcode", "n_embd": 64, "n_layer": 1, "n_head": 4,
                                           "vocab_size": 100, "n_positions": 32})",
                                       "config.json"))
               .graph;
  for (const auto& n : g.nodes) {
    if (n.name == "Attention_0") {
      EXPECT_EQ(n.type, neurarch::graph::NodeType::MultiQueryAttention);
    }
  }
  EXPECT_EQ(g.find_tensor("h.0.attn.c_attn.weight")->shape, (neurarch::graph::Shape{96, 64}));
}
