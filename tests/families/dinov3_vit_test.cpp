#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> size = {}) {
  model::BuildOptions options;
  options.image_size = size;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

TEST(Dinov3VitFamily, RopeSoAnySizeRunsAndNoPositionTable) {
  auto m = build({{"model_type", "dinov3_vit"}, {"num_register_tokens", 4}}, 512);
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{1 + 4 + 1024, 384}));
  for (const auto& t : m.graph.tensors) EXPECT_EQ(t.name.find("position"), std::string::npos) << t.name;
}

TEST(Dinov3VitFamily, PerProjectionBiasesAndGatedMlp) {
  auto m = build({{"model_type", "dinov3_vit"}, {"key_bias", true}, {"query_bias", false}, {"use_gated_mlp", true},
                  {"mlp_bias", false}});
  const auto& g = m.graph;
  EXPECT_NE(g.find_tensor("layer.0.attention.k_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("layer.0.attention.q_proj.bias"), nullptr);
  EXPECT_NE(g.find_tensor("layer.0.attention.v_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("layer.0.mlp.gate_proj.weight")->shape, (graph::Shape{1536, 384}));
  EXPECT_EQ(g.find_tensor("layer.0.mlp.up_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("layer.0.mlp.down_proj.bias"), nullptr);
}

}  // namespace
}  // namespace neurarch
