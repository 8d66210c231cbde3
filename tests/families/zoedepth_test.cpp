#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(ZoeDepthFamily, BeitLargeBackboneDptNeckAndMetricBins) {
  auto m = build({{"model_type", "zoedepth"}});
  EXPECT_EQ(m.graph.find_tensor("backbone.encoder.layer.23.lambda_2")->shape, (graph::Shape{1024}));
  EXPECT_EQ(m.graph.find_tensor("metric_head.conditional_log_binomial.mlp.0.weight")->shape,
            (graph::Shape{80, 161, 1, 1}));
  // 384 px, 16 px patches: the finest fused map is 192 x 192, the relative head upsamples it to 384.
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{384, 384}));
  EXPECT_EQ(m.graph.saved_scalars(), 333'277'250);
  EXPECT_TRUE(m.graph.forward.ok);
}

TEST(ZoeDepthFamily, SeveralBinConfigurationsVoteThroughAPatchTransformer) {
  auto m = build({{"model_type", "zoedepth"},
                  {"bin_configurations",
                   {{{"name", "nyu"}, {"n_bins", 64}, {"min_depth", 0.001}, {"max_depth", 10.0}},
                    {{"name", "kitti"}, {"n_bins", 32}, {"min_depth", 0.001}, {"max_depth", 80.0}}}},
                  {"num_patch_transformer_layers", 4},
                  {"patch_transformer_hidden_size", 128},
                  {"patch_transformer_intermediate_size", 1024},
                  {"patch_transformer_num_attention_heads", 4}});
  EXPECT_EQ(m.graph.find_tensor("metric_head.seed_bin_regressors.kitti.conv2.weight")->shape,
            (graph::Shape{32, 64, 1, 1}));
  // The multiple head builds its attractors with n_attractors left at 16.
  EXPECT_EQ(m.graph.find_tensor("metric_head.attractors.nyu.3.conv2.weight")->shape, (graph::Shape{16, 128, 1, 1}));
  // transformers 5.24's count for this config.
  EXPECT_EQ(m.graph.saved_scalars(), 334'558'779);
  EXPECT_NE(node(m.graph, "MLP_Classifier_Linear2"), nullptr);
  EXPECT_THROW(build({{"model_type", "zoedepth"}, {"bin_centers_type", "hybrid2"}}), Error);
}

}  // namespace
}  // namespace neurarch
