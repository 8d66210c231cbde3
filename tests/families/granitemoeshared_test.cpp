// GraniteMoeShared: every ground-truth class (the defaults have no shared MLP), and the shared MLP beside
// the experts when shared_intermediate_size > 0.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(GranitemoesharedGraph, SharedMlpBesideTheExperts) {
  auto g = model::build_model(Config::parse(R"({"model_type": "granitemoeshared", "hidden_size": 64,
      "intermediate_size": 32, "shared_intermediate_size": 48, "num_hidden_layers": 2, "num_attention_heads": 4,
      "num_key_value_heads": 4, "num_local_experts": 4, "num_experts_per_tok": 2, "vocab_size": 100})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("layers.1.shared_mlp.input_linear.weight")->shape, (graph::Shape{96, 64}));
  EXPECT_EQ(g.find_tensor("layers.1.shared_mlp.output_linear.weight")->shape, (graph::Shape{64, 48}));
  EXPECT_EQ(g.find_tensor("layers.1.block_sparse_moe.input_linear.weight")->shape, (graph::Shape{4, 64, 64}));
  // The shared MLP runs for every token: only the routed experts count less in the active total.
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 2LL * 2 * (64 * 64 + 64 * 32));
  bool added = false;
  for (const auto& n : g.nodes) added = added || n.name == "Add_1_shared";
  EXPECT_TRUE(added);
}
