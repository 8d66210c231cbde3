#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(VideoLlavaFamily, OnePhotoAndOneVideoShareTheProjector) {
  nlohmann::json config{
      {"model_type", "video_llava"},
      {"video_seq_length", 4 * 17},
      {"text_config", {{"model_type", "llama"}, {"hidden_size", 256}, {"intermediate_size", 512},
                       {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"vocab_size", 1000}}},
      {"vision_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 3},
                         {"num_attention_heads", 4}, {"image_size", 56}, {"patch_size", 14}}}};
  model::BuildOptions options;
  options.seq = 128;
  const auto m = model::build_model(Config(config, "config.json"), options);
  const auto& g = m.graph;
  // A 56-px frame is 16 patches: the photo drops the class token (16), each of the 4 frames keeps it (17).
  const auto* linear_1 = node(g, "Projector_Linear_1");
  ASSERT_NE(linear_1, nullptr);
  EXPECT_EQ(linear_1->out, (graph::Shape{16 + 4 * 17, 256}));
  ASSERT_EQ(linear_1->inputs.size(), 2u);
  // vision_feature_layer -2: the output of the second of three layers in each tower.
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(linear_1->inputs[0])).name, "Image_Add_1_2");
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(linear_1->inputs[1])).name, "Video_Add_1_2");
  EXPECT_EQ(node(g, "Video_Patch_Embed")->out, (graph::Shape{4, 17, 64}));
  EXPECT_NE(g.find_tensor("video_tower.vision_model.post_layernorm.weight"), nullptr);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
