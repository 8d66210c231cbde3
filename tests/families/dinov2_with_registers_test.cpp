#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;

TEST(Dinov2WithRegistersFamily, RegistersJoinTheSequenceButNotThePositionTable) {
  auto m = build({{"model_type", "dinov2_with_registers"}, {"patch_size", 14}, {"image_size", 518}});
  EXPECT_EQ(m.graph.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 1370, 768}));
  EXPECT_EQ(m.graph.find_tensor("embeddings.register_tokens")->shape, (graph::Shape{1, 4, 768}));
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{1374, 768}));
}

TEST(Dinov2WithRegistersFamily, InterpolatesSoAnySizeRuns) {
  auto m = build({{"model_type", "dinov2_with_registers"}}, "Dinov2WithRegistersForImageClassification", 320);
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.nodes.at(3).out, (graph::Shape{1 + 4 + 400, 768}));
  EXPECT_EQ(m.graph.find_tensor("classifier.weight")->shape, (graph::Shape{2, 1536}));
}

TEST(Dinov2WithRegistersFamily, SwiGluWidth) {
  auto m = build({{"model_type", "dinov2_with_registers"}, {"use_swiglu_ffn", true}});
  // int(3072 * 2 / 3) = 2048, already a multiple of 8.
  EXPECT_EQ(m.graph.find_tensor("encoder.layer.0.mlp.weights_in.weight")->shape, (graph::Shape{4096, 768}));
  EXPECT_EQ(m.graph.find_tensor("encoder.layer.0.mlp.weights_out.weight")->shape, (graph::Shape{768, 2048}));
}

}  // namespace
}  // namespace neurarch
