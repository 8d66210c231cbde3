// GraniteMoeHybrid (Granite 4.0): Mamba-2 or attention per layer as layer_types says (either spelling), the shared
// MLP beside the experts or alone, and RoPE only when position_embedding_type is "rope".
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

namespace {

graph::Graph build(const std::string& extra) {
  return model::build_model(Config::parse(R"({"architectures": ["GraniteMoeHybridForCausalLM"],
      "model_type": "granitemoehybrid", "hidden_size": 256, "intermediate_size": 64, "num_hidden_layers": 4,
      "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000, "mamba_n_heads": 8,
      "mamba_d_state": 16, "shared_intermediate_size": 128, )" + extra + "}",
                                          "config.json"))
      .graph;
}

int attention_nodes(const graph::Graph& g, bool rotary) {
  int n = 0;
  for (const auto& node : g.nodes)
    if (node.attention && node.attention->rotary == rotary) ++n;
  return n;
}

}  // namespace

TEST(GraniteMoeHybridGraph, LayerTypesInEitherSpellingChooseTheMixer) {
  for (const char* types : {R"(["mamba", "attention", "mamba", "attention"])",
                            R"(["linear_attention", "full_attention", "linear_attention", "full_attention"])"}) {
    auto g = build(std::string(R"("num_local_experts": 4, "num_experts_per_tok": 2, "layer_types": )") + types);
    ASSERT_TRUE(g.forward.ok) << g.forward.reason;
    EXPECT_NE(g.find_tensor("model.layers.0.mamba.A_log"), nullptr) << types;
    EXPECT_EQ(g.find_tensor("model.layers.0.self_attn.q_proj.weight"), nullptr) << types;
    EXPECT_NE(g.find_tensor("model.layers.1.self_attn.q_proj.weight"), nullptr) << types;
    EXPECT_EQ(g.find_tensor("model.layers.1.mamba.A_log"), nullptr) << types;
    // Experts and the shared MLP on every layer, whichever mixer it has.
    EXPECT_EQ(g.find_tensor("model.layers.0.block_sparse_moe.input_linear.weight")->shape,
              (graph::Shape{4, 128, 256}));
    EXPECT_EQ(g.find_tensor("model.layers.1.shared_mlp.input_linear.weight")->shape, (graph::Shape{256, 256}));
    EXPECT_EQ(attention_nodes(g, true), 0) << "no position_embedding_type: no RoPE";
    EXPECT_EQ(attention_nodes(g, false), 2);
  }
}

TEST(GraniteMoeHybridGraph, WithoutExpertsTheSharedMlpIsTheFeedForwardAndRopeWhenAsked) {
  auto g = build(R"("num_local_experts": 0, "position_embedding_type": "rope",
      "layer_types": ["attention", "attention", "attention", "attention"])");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.layers.2.block_sparse_moe.router.layer.weight"), nullptr);
  EXPECT_NE(g.find_tensor("model.layers.2.shared_mlp.output_linear.weight"), nullptr);
  for (const auto& node : g.nodes) EXPECT_FALSE(node.moe.has_value()) << node.name;
  EXPECT_EQ(attention_nodes(g, true), 4);
}
