#include <string>

#include <gmock/gmock.h>
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

TEST(VitposeBackboneFamily, RectangularImageNoClsToken) {
  auto m = build({{"model_type", "vitpose_backbone"}});
  EXPECT_EQ(m.graph.input_shape, (graph::Shape{3, 256, 192}));
  EXPECT_EQ(m.graph.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 193, 768}));
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{192, 768}));
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
}

TEST(VitposeBackboneFamily, OnlyTheConfiguredSizeRuns) {
  auto m = build({{"model_type", "vitpose_backbone"}}, 256);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, ::testing::HasSubstr("256x192"));
}

TEST(VitposeBackboneFamily, ExpertMlp) {
  auto m = build({{"model_type", "vitpose_backbone"}, {"num_experts", 6}});
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("encoder.layer.0.mlp.fc2.weight")->shape, (graph::Shape{512, 3072}));
  EXPECT_EQ(g.find_tensor("encoder.layer.11.mlp.experts.5.weight")->shape, (graph::Shape{256, 3072}));
  EXPECT_EQ(g.find_tensor("encoder.layer.0.mlp.experts.6.weight"), nullptr);
  EXPECT_TRUE(g.forward.ok);
}

}  // namespace
}  // namespace neurarch
