// XGLM: every ground-truth class, xglm-564M's size (the class defaults), no position tensor and the
// three dropouts on the nodes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(XglmGraph, DefaultsAreXglm564MWithDropoutsAndNoPositionTable) {
  auto g = model::build_model(Config::parse(R"({"model_type": "xglm", "architectures": ["XGLMForCausalLM"]})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.saved_scalars(), 564'463'616);
  EXPECT_EQ(g.find_tensor("model.embed_positions.weights"), nullptr);  // a non-persistent sinusoid
  const graph::Node* attention = nullptr;
  const graph::Node* ffn = nullptr;
  for (const auto& n : g.nodes) {
    if (n.name == "Attention_0") attention = &n;
    if (n.name == "FFN_0") ffn = &n;
  }
  ASSERT_TRUE(attention && ffn);
  EXPECT_FALSE(attention->attention->rotary);
  EXPECT_FALSE(attention->attention->sdpa);
  EXPECT_DOUBLE_EQ(attention->attention->dropout, 0.1);
  EXPECT_DOUBLE_EQ(attention->dropout, 0.1);
  EXPECT_DOUBLE_EQ(ffn->dropout, 0.1);
  EXPECT_DOUBLE_EQ(ffn->feed_forward->inner_dropout, 0.0);
  EXPECT_EQ(g.find_tensor("model.layers.3.fc1.weight")->shape, (graph::Shape{4096, 1024}));
}
