// Apertus: every ground-truth class, and the xIELU activation's learnable and constant tensors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(ApertusGraph, XieluOwnsItsParametersAndAnotherActivationDoesNot) {
  const char* base = R"({"architectures": ["ApertusForCausalLM"], "model_type": "apertus", "hidden_size": 256,
      "intermediate_size": 512, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
      "vocab_size": 1000)";
  auto xielu = model::build_model(Config::parse(std::string(base) + "}", "config.json")).graph;
  ASSERT_TRUE(xielu.forward.ok) << xielu.forward.reason;
  EXPECT_EQ(xielu.find_tensor("model.layers.1.mlp.act_fn.alpha_p")->shape, (graph::Shape{1}));
  const auto* beta = xielu.find_tensor("model.layers.1.mlp.act_fn.beta");
  ASSERT_NE(beta, nullptr);
  EXPECT_EQ(beta->kind, graph::TensorKind::Buffer);
  EXPECT_EQ(beta->dtype, DType::BF16);
  EXPECT_EQ(xielu.find_tensor("model.layers.0.mlp.gate_proj.weight"), nullptr);
  EXPECT_EQ(xielu.find_tensor("model.layers.0.self_attn.k_proj.weight")->shape, (graph::Shape{128, 256}));

  auto relu = model::build_model(Config::parse(std::string(base) + R"(, "hidden_act": "relu2"})", "config.json")).graph;
  EXPECT_EQ(relu.find_tensor("model.layers.1.mlp.act_fn.alpha_p"), nullptr);
  EXPECT_EQ(xielu.saved_scalars() - relu.saved_scalars(), 2 * 4);
}
