// Graph facts of EnCodec that its tensor list does not show: the frame counts through the causally padded strided
// convs and the transposed convs, and the LSTM written as projections, gates and cell nodes.
// Tensors: tests/groundtruth_test.cpp.
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(EncodecFamily, FramesThroughTheCodecAndTheLstmNodes) {
  nlohmann::json config = {{"model_type", "encodec"}, {"num_filters", 8}, {"hidden_size", 16},
                           {"upsampling_ratios", {4, 2}}, {"codebook_size", 64}, {"sampling_rate", 8000},
                           {"target_bandwidths", {12.0}}};
  model::BuildOptions options;
  options.seq = 1001;
  auto m = model::build_model(Config(std::move(config), "config.json"), options);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // ceil(1001 / 2) = 501, then ceil(501 / 4) = 126 frames; the decoder gives back 126 * 8 samples.
  EXPECT_EQ(node(g, "Encoder_Block_0_Downsample").out, (graph::Shape{501, 16}));
  EXPECT_EQ(node(g, "Encoder_Conv_Out").out, (graph::Shape{126, 16}));
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{1008, 1}));
  // The LSTM (width 32 after two doublings): input and recurrent projections to 4 x 32, the cell back to 32.
  EXPECT_EQ(node(g, "Encoder_LSTM_Input_0").out, (graph::Shape{126, 128}));
  EXPECT_EQ(node(g, "Encoder_LSTM_Cell_1").out, (graph::Shape{126, 32}));
  EXPECT_EQ(g.find_tensor("encoder.layers.7.lstm.weight_hh_l1")->shape, (graph::Shape{128, 32}));
  // 1000 * 12 // (ceil(8000 / 8) * log2(64)) = 2 codebooks.
  EXPECT_NE(g.find_tensor("quantizer.layers.1.codebook.embed"), nullptr);
  EXPECT_EQ(g.find_tensor("quantizer.layers.2.codebook.embed"), nullptr);
}

TEST(EncodecFamily, ABandwidthBelowOneCodebookIsRefused) {
  nlohmann::json config = {{"model_type", "encodec"}, {"sampling_rate", 8000}, {"upsampling_ratios", {4, 2}},
                           {"target_bandwidths", {1.5}}};
  EXPECT_THROW(model::build_model(Config(std::move(config), "config.json"), {}), Error);
}

}  // namespace
}  // namespace neurarch
