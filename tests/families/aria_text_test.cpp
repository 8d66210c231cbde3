// Aria's text model: every ground-truth class, and the split between routed and shared experts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(AriaTextGraph, OnlyTheRoutedExpertsAreInactive) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["AriaTextForCausalLM"], "model_type": "aria_text",
      "hidden_size": 256, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4,
      "vocab_size": 1000, "moe_num_experts": 16, "moe_topk": 4, "moe_num_shared_experts": 3})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.experts.fc1.weight")->shape, (graph::Shape{16, 256, 256}));
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.shared_experts.up_proj.weight")->shape, (graph::Shape{384, 256}));
  // Per layer, 12 of 16 experts idle, each 256 x 256 + 128 x 256.
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 2 * 12 * (256 * 256 + 128 * 256));
}
