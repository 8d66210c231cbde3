#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(FlavaFamily, MultimodalEncoderReadsClsImageAndText) {
  model::BuildOptions options;
  options.class_name = "FlavaModel";
  options.seq = 40;
  auto m = model::build_model(Config(nlohmann::json{{"model_type", "flava"},
                                                    {"image_config", {{"num_hidden_layers", 1}}},
                                                    {"text_config", {{"num_hidden_layers", 1}}},
                                                    {"multimodal_config", {{"num_hidden_layers", 1}}}},
                                     "config.json"),
                              options);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // The multimodal cls token, 196 patches and the image cls token, 40 text tokens.
  EXPECT_EQ(node(g, "MM_Join").out, (graph::Shape{1 + 197 + 40, 768}));
  EXPECT_EQ(g.find_tensor("image_model.embeddings.position_embeddings")->shape, (graph::Shape{1, 197, 768}));
  EXPECT_EQ(g.find_tensor("image_model.embeddings.mask_token")->shape, (graph::Shape{1, 1, 768}));
  EXPECT_EQ(g.find_tensor("logit_scale")->shape, (graph::Shape{}));
  // Layers are numbered across the three encoders.
  EXPECT_NE(g.find_tensor("multimodal_model.encoder.layer.0.attention.attention.query.weight"), nullptr);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{238, 768}));
}

}  // namespace
}  // namespace neurarch
