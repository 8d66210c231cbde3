#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(UperNetFamily, PyramidPoolingAndFpnOverResNet) {
  auto m = build({{"model_type", "upernet"}, {"auxiliary_in_channels", 1024}, {"num_labels", 150}});
  const auto& g = m.graph;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 512, 512}));
  EXPECT_EQ(node(g, "PSP_3_Pool")->out, (graph::Shape{2048, 6, 6}));
  EXPECT_EQ(node(g, "PSP_Concat")->out, (graph::Shape{2048 + 4 * 512, 16, 16}));
  EXPECT_EQ(node(g, "FPN_Concat")->out, (graph::Shape{4 * 512, 128, 128}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{150, 512, 512}));
  EXPECT_EQ(g.find_tensor("auxiliary_head.convs.0.conv.weight")->shape, (graph::Shape{256, 1024, 3, 3}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(UperNetFamily, DefaultAuxiliaryWidthDoesNotMatchResNet) {
  // UperNetConfig's defaults declare a 384-channel auxiliary input for ResNet's 1024-channel map.
  auto m = build({{"model_type", "upernet"}});
  EXPECT_FALSE(m.graph.forward.ok);
  auto no_aux = build({{"model_type", "upernet"}, {"use_auxiliary_head", false}});
  EXPECT_TRUE(no_aux.graph.forward.ok) << no_aux.graph.forward.reason;
  EXPECT_EQ(no_aux.graph.find_tensor("auxiliary_head.classifier.weight"), nullptr);
}

TEST(UperNetFamily, OtherBackbonesAreRefused) {
  EXPECT_THROW(build({{"model_type", "upernet"}, {"backbone_config", {{"model_type", "swin"}}}}), std::exception);
}

}  // namespace
}  // namespace neurarch
