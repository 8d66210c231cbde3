#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {},
                        std::optional<std::int64_t> image = {}) {
  model::BuildOptions options;
  options.seq = seq;
  options.image_size = image;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

TEST(FuyuFamily, PatchesAreProjectedStraightIntoThePrompt) {
  auto m = build({{"model_type", "fuyu"}, {"num_hidden_layers", 2}}, 512, 600);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.input_shape, (graph::Shape{512}));
  // 600 / 30 = 20: 400 tiles of 30 x 30 x 3 values.
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "image_patches");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{400, 2700}));
  // Without text_config the top-level keys build the Persimmon model.
  EXPECT_NE(g.find_tensor("language_model.model.layers.1.self_attn.query_key_value.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("language_model.model.layers.2.self_attn.query_key_value.weight"), nullptr);
}

TEST(FuyuFamily, PromptMustHoldTheImageTiles) {
  auto m = build({{"model_type", "fuyu"}, {"num_hidden_layers", 1}}, 64);
  EXPECT_FALSE(m.graph.forward.ok);
}

}  // namespace
}  // namespace neurarch
