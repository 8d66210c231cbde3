// Graph facts of Gemma 3n's audio encoder that its tensor list does not show: the sub-sampled frames, the
// chunked attention's key length and the final frame reduction. Tensors: tests/groundtruth_test.cpp.
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::int64_t frames) {
  model::BuildOptions options;
  options.seq = frames;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

nlohmann::json small_audio() {
  return {{"model_type", "gemma3n_audio"}, {"hidden_size", 64},           {"conf_num_attention_heads", 4},
          {"conf_num_hidden_layers", 2},   {"input_feat_size", 32},       {"sscp_conv_channel_size", {8, 4}},
          {"conf_attention_chunk_size", 6}, {"conf_attention_context_left", 5}, {"conf_reduction_factor", 3}};
}

TEST(Gemma3nAudioFamily, SubsampledFramesChunkedAttentionAndReduction) {
  auto m = build(small_audio(), 101);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "audio_features");
  // Time padded by kernel - 1 after: ceil(101 / 2) = 51, then 26 frames; frequency 32 -> 16 -> 8.
  EXPECT_EQ(node(g, "Subsample_Conv_0").out, (graph::Shape{8, 51, 16}));
  EXPECT_EQ(node(g, "Subsample_Conv_1").out, (graph::Shape{4, 26, 8}));
  EXPECT_EQ(g.find_tensor("subsample_conv_projection.input_proj_linear.weight")->shape, (graph::Shape{64, 32}));
  // Each block of 6 queries scores 6 + (5 - 1) keys.
  const auto& attention = *node(g, "Attention_1").attention;
  EXPECT_EQ(attention.query_len, 26);
  EXPECT_EQ(attention.kv_len, 10);
  EXPECT_FALSE(attention.sdpa);
  EXPECT_EQ(node(g, "Frame_Reduction").out, (graph::Shape{9, 64}));
}

TEST(Gemma3nAudioFamily, MalformedConvolutionListsAreRefused) {
  auto config = small_audio();
  config["sscp_conv_kernel_size"] = {{3, 3}};
  EXPECT_THROW(build(config, 100), Error);
  config = small_audio();
  config["sscp_conv_channel_size"] = {8, 0};
  EXPECT_THROW(build(config, 100), Error);
}

}  // namespace
}  // namespace neurarch
