#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

using test_support::build;

TEST(DeitFamily, DistillationTokenAddsAPositionRow) {
  auto m = build({{"model_type", "deit"}});
  EXPECT_EQ(m.graph.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 198, 768}));
  EXPECT_EQ(m.graph.nodes.at(3).out, (graph::Shape{198, 768}));
  EXPECT_TRUE(m.graph.forward.ok);
}

TEST(DeitFamily, TeacherAveragesTwoClassifiers) {
  auto m = build({{"model_type", "deit"}, {"num_labels", 5}}, "DeiTForImageClassificationWithTeacher");
  EXPECT_EQ(m.graph.find_tensor("cls_classifier.weight")->shape, (graph::Shape{5, 768}));
  EXPECT_EQ(m.graph.find_tensor("distillation_classifier.weight")->shape, (graph::Shape{5, 768}));
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{5}));
  EXPECT_EQ(m.graph.saved_scalars(), 85'800'192 + 2 * (5 * 768 + 5));
}

TEST(DeitFamily, AnotherPatchCountNeedsInterpolation) {
  auto m = build({{"model_type", "deit"}}, "", 384);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("198 learned positions"));
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("interpolate_pos_encoding=True"));
  // DeiT does not check the size itself: 230 pixels still make 14 x 14 patches.
  EXPECT_TRUE(build({{"model_type", "deit"}}, "", 230).graph.forward.ok);
}

TEST(DeitFamily, MaskedImageModeling) {
  auto m = build({{"model_type", "deit"}}, "DeiTForMaskedImageModeling");
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{3, 224, 224}));
  EXPECT_NE(m.graph.find_tensor("deit.embeddings.mask_token"), nullptr);
}

}  // namespace
}  // namespace neurarch
