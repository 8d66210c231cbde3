#include <gtest/gtest.h>

#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(TableTransformerFamily, PreNormLayersAndAnEncoderNorm) {
  // microsoft/table-transformer-detection's backbone and query count.
  auto m = build({{"model_type", "table-transformer"}, {"backbone", "resnet18"}, {"num_queries", 15}},
                 "TableTransformerForObjectDetection");
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.input_projection.weight")->shape, (graph::Shape{256, 512, 1, 1}));
  EXPECT_NE(g.find_tensor("model.encoder.layernorm.weight"), nullptr);
  // normalize_before: the first layer's norm reads the projected features, not a residual sum.
  const auto* first_norm = node(g, "LayerNorm_0_1");
  ASSERT_NE(first_norm, nullptr);
  EXPECT_EQ(first_norm->inputs.front(), node(g, "Input_Projection")->index);
  EXPECT_EQ(node(g, "Decoder_Final_LayerNorm")->out, (graph::Shape{15, 256}));
}

}  // namespace
}  // namespace neurarch
