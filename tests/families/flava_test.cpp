#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/family_graph.hpp"

namespace neurarch {
namespace {

using testing::find_node;

graph::Graph build(nlohmann::json config, const std::string& cls, std::optional<std::int64_t> seq = {}) {
  return testing::build_graph(Config(std::move(config), "config.json"), cls, seq);
}

TEST(FlavaFamily, MultimodalEncoderReadsClsImageAndText) {
  const auto g = build({{"model_type", "flava"},
                        {"image_config", {{"num_hidden_layers", 1}}},
                        {"text_config", {{"num_hidden_layers", 1}}},
                        {"multimodal_config", {{"num_hidden_layers", 1}}}},
                       "FlavaModel", 40);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // The multimodal cls token, 196 patches and the image cls token, 40 text tokens.
  EXPECT_EQ(find_node(g, "MM_Join")->out, (graph::Shape{1 + 197 + 40, 768}));
  EXPECT_EQ(g.find_tensor("image_model.embeddings.position_embeddings")->shape, (graph::Shape{1, 197, 768}));
  EXPECT_EQ(g.find_tensor("image_model.embeddings.mask_token")->shape, (graph::Shape{1, 1, 768}));
  EXPECT_EQ(g.find_tensor("logit_scale")->shape, (graph::Shape{}));
  // Layers are numbered across the three encoders.
  EXPECT_NE(g.find_tensor("multimodal_model.encoder.layer.0.attention.attention.query.weight"), nullptr);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{238, 768}));
}

}  // namespace
}  // namespace neurarch
