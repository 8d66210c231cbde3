#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

using test_support::build;

using test_support::node;

TEST(VitFamily, BaseModelKeepsItsPoolerAndDefaults) {
  auto m = build({{"model_type", "vit"}});
  const auto& g = m.graph;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 224, 224}));
  EXPECT_EQ(g.nodes.size(), 3u + 12 * 6 + 3);
  ASSERT_NE(node(g, "Pooler"), nullptr);
  EXPECT_EQ(node(g, "Pooler")->out, (graph::Shape{768}));
  EXPECT_EQ(node(g, "Attention_11")->out, (graph::Shape{197, 768}));
  EXPECT_EQ(g.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 197, 768}));
  EXPECT_EQ(g.saved_scalars(), 86'389'248);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(VitFamily, PoolerOutputSizeAndActivation) {
  auto m = build({{"model_type", "vit"}, {"pooler_output_size", 512}, {"pooler_act", "gelu"}});
  EXPECT_EQ(m.graph.find_tensor("pooler.dense.weight")->shape, (graph::Shape{512, 768}));
  EXPECT_EQ(node(m.graph, "Pooler")->activation, "gelu");
}

TEST(VitFamily, RefusesAnotherImageSizeWithoutInterpolation) {
  auto m = build({{"model_type", "vit"}}, "", 256);
  const auto& f = m.graph.forward;
  EXPECT_FALSE(f.ok);
  EXPECT_EQ(m.graph.nodes.at(static_cast<std::size_t>(f.node)).name, "Patch_Embed");
  EXPECT_THAT(f.reason, HasSubstr("256x256"));
  EXPECT_THAT(f.reason, HasSubstr("224x224"));
  EXPECT_THAT(f.reason, HasSubstr("interpolate_pos_encoding=True"));
  // The graph still describes what the image would produce.
  EXPECT_EQ(node(m.graph, "Final_LayerNorm")->out, (graph::Shape{257, 768}));
}

TEST(VitFamily, ClassifierReadsTheClsToken) {
  nlohmann::json labels;
  for (int i = 0; i < 1000; ++i) labels[std::to_string(i)] = std::to_string(i);
  auto m = build({{"model_type", "vit"}, {"architectures", {"ViTForImageClassification"}}, {"id2label", labels}});
  EXPECT_EQ(m.class_name, "ViTForImageClassification");
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{1000}));
  EXPECT_EQ(m.graph.find_tensor("pooler.dense.weight"), nullptr);
  EXPECT_NE(m.graph.find_tensor("vit.embeddings.cls_token"), nullptr);
}

TEST(VitFamily, MaskedImageModelingReconstructsPixels) {
  auto m = build({{"model_type", "vit"}, {"image_size", 192}}, "ViTForMaskedImageModeling");
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{3, 192, 192}));
  EXPECT_EQ(m.graph.find_tensor("vit.embeddings.mask_token")->shape, (graph::Shape{1, 1, 768}));
  EXPECT_EQ(m.graph.find_tensor("decoder.0.weight")->shape, (graph::Shape{768, 768, 1, 1}));
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
}

TEST(VitFamily, HeadsMustDivideHidden) {
  auto m = build({{"model_type", "vit"}, {"num_attention_heads", 7}});
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("not divisible"));
}

}  // namespace
}  // namespace neurarch
