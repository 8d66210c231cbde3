// Graph facts of Parakeet's FastConformer that its tensor list does not show: the 8x sub-sampling of the frames
// and the mel bins, and the relative-position span. Tensors: tests/groundtruth_test.cpp.
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(ParakeetEncoderFamily, EightfoldSubsamplingAndRelativeSpan) {
  nlohmann::json config = {{"model_type", "parakeet_encoder"}, {"hidden_size", 64}, {"num_hidden_layers", 2},
                           {"num_attention_heads", 4}, {"intermediate_size", 128}, {"subsampling_conv_channels", 16},
                           {"num_mel_bins", 80}};
  model::BuildOptions options;
  options.seq = 1000;
  auto m = model::build_model(Config(std::move(config), "config.json"), options);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // (1000 + 2 - 3) / 2 + 1 = 500 -> 250 -> 125 frames; 80 mel bins -> 10, flattened with 16 channels.
  EXPECT_EQ(node(g, "Subsample_Depthwise_2").out, (graph::Shape{16, 125, 10}));
  EXPECT_EQ(g.find_tensor("subsampling.linear.weight")->shape, (graph::Shape{64, 160}));
  const auto& attn = *node(g, "Attention_0").attention;
  EXPECT_EQ(attn.query_len, 125);
  EXPECT_EQ(attn.relative_span, 2 * 125 - 1);
  EXPECT_TRUE(attn.c2p);
}

}  // namespace
}  // namespace neurarch
