#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

TEST(VitMsnFamily, NoPoolerAndTheSizeCheck) {
  model::BuildOptions options;
  auto m = model::build_model(Config({{"model_type", "vit_msn"}}, "config.json"), options);
  EXPECT_EQ(m.graph.find_tensor("pooler.dense.weight"), nullptr);
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{197, 768}));
  EXPECT_TRUE(m.graph.forward.ok);

  options.image_size = 448;
  auto big = model::build_model(Config({{"model_type", "vit_msn"}}, "config.json"), options);
  EXPECT_FALSE(big.graph.forward.ok);
  EXPECT_THAT(big.graph.forward.reason, ::testing::HasSubstr("interpolate_pos_encoding"));
}

}  // namespace
}  // namespace neurarch
