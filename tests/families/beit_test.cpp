#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;

TEST(BeitFamily, RelativePositionBiasPerLayerAndInterpolation) {
  auto m = build({{"model_type", "beit"}, {"use_relative_position_bias", true}}, "BeitForImageClassification", 384);
  const auto& g = m.graph;
  // (2 * 14 - 1)^2 + 3 relations for the configured 224 / 16 window, one column per head.
  EXPECT_EQ(g.find_tensor("beit.encoder.layer.11.attention.attention.relative_position_bias.relative_position_bias_table")
                ->shape,
            (graph::Shape{732, 12}));
  EXPECT_EQ(g.find_tensor("beit.encoder.layer.0.attention.attention.key.bias"), nullptr);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.nodes.at(3).out, (graph::Shape{577, 768}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{2}));
}

TEST(BeitFamily, SharedBiasAbsolutePositionsAndClsPooling) {
  auto m = build({{"model_type", "beit"},
                  {"use_shared_relative_position_bias", true},
                  {"use_absolute_position_embeddings", true},
                  {"use_mean_pooling", false},
                  {"layer_scale_init_value", 0.0}});
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("encoder.relative_position_bias.relative_position_bias_table")->shape,
            (graph::Shape{732, 12}));
  EXPECT_EQ(g.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 197, 768}));
  EXPECT_NE(g.find_tensor("layernorm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("pooler.layernorm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.layer.0.lambda_1"), nullptr);
}

TEST(BeitFamily, MaskedImageModelingPredictsVisualTokens) {
  auto m = build({{"model_type", "beit"}, {"use_mask_token", true}}, "BeitForMaskedImageModeling");
  const auto& g = m.graph;
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{196, 8192}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->shape, (graph::Shape{8192, 768}));
  EXPECT_NE(g.find_tensor("layernorm.bias"), nullptr);
  EXPECT_NE(g.find_tensor("beit.embeddings.mask_token"), nullptr);
}

}  // namespace
}  // namespace neurarch
