#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> image_size = {}) {
  model::BuildOptions options;
  options.image_size = image_size;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

TEST(Idefics3VisionFamily, OneImageOfPatchesPostLayerNormed) {
  auto m = build({{"model_type", "idefics3_vision"}});
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "pixels");
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 224, 224}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{49, 1152}));  // 7 x 7 patches of 32 px
}

TEST(Idefics3VisionFamily, AnyImageSizeRunsThePositionTableStays) {
  // SmolVLM's published tower: 512-px crops of 16-px patches; a 1024-px image runs 4096 patches over 1024 rows.
  const nlohmann::json config{{"model_type", "smolvlm_vision"}, {"image_size", 512}, {"patch_size", 16}};
  auto big = build(config, 1024);
  EXPECT_TRUE(big.graph.forward.ok) << big.graph.forward.reason;
  EXPECT_EQ(big.graph.nodes.back().out, (graph::Shape{4096, 1152}));
  EXPECT_EQ(big.graph.find_tensor("embeddings.position_embedding.weight")->shape, (graph::Shape{1024, 1152}));
  auto tiny = build(config, 8);
  EXPECT_FALSE(tiny.graph.forward.ok);
  EXPECT_THAT(tiny.graph.forward.reason, ::testing::HasSubstr("smaller than one 16-pixel patch"));
}

}  // namespace
}  // namespace neurarch
