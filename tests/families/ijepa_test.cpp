#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;

TEST(IjepaFamily, PatchesOnlyNoClsNoPooler) {
  auto m = build({{"model_type", "ijepa"}, {"image_size", 448}, {"patch_size", 14}});
  EXPECT_EQ(m.graph.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 1024, 768}));
  EXPECT_EQ(m.graph.find_tensor("embeddings.cls_token"), nullptr);
  EXPECT_EQ(m.graph.find_tensor("pooler.dense.weight"), nullptr);
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{1024, 768}));
  EXPECT_TRUE(m.graph.forward.ok);
}

TEST(IjepaFamily, ClassifierOnTheMeanAndTheSizeCheck) {
  auto m = build({{"model_type", "ijepa"}}, "IJepaForImageClassification");
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{2}));
  auto other = build({{"model_type", "ijepa"}}, "", 336);
  EXPECT_FALSE(other.graph.forward.ok);
  EXPECT_THAT(other.graph.forward.reason, ::testing::HasSubstr("336x336"));
}

}  // namespace
}  // namespace neurarch
