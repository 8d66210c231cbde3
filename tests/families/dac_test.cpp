// Graph facts of DAC that its tensor list does not show: the frame counts through the strided encoder and the
// transposed-conv decoder, and the dilated residual units keeping the length. Tensors: tests/groundtruth_test.cpp.
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

TEST(DacFamily, FramesThroughEncoderAndDecoder) {
  nlohmann::json config = {{"model_type", "dac"}, {"encoder_hidden_size", 8}, {"downsampling_ratios", {2, 4}},
                           {"decoder_hidden_size", 32}, {"upsampling_ratios", {4, 2}}, {"hidden_size", 16},
                           {"n_codebooks", 2}, {"codebook_size", 32}, {"codebook_dim", 4}};
  model::BuildOptions options;
  options.seq = 800;
  auto m = model::build_model(Config(std::move(config), "config.json"), options);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Stride 2 (kernel 4, padding 1): 400 frames; stride 4 (kernel 8, padding 2): 100.
  EXPECT_EQ(node(g, "Encoder_Block_0_Downsample").out, (graph::Shape{400, 16}));
  EXPECT_EQ(node(g, "Encoder_Conv_2").out, (graph::Shape{100, 16}));
  // A kernel-7 conv dilated 9 and padded 27 keeps the length.
  EXPECT_EQ(node(g, "Encoder_Block_1_Unit_3_Conv_1").out, (graph::Shape{400, 16}));
  // ConvTranspose1d(32 -> 16, kernel 8, stride 4, padding 2): (100 - 1) * 4 - 4 + 8 = 400 frames; its node is
  // the per-frame matmul, [100, 16 * 8].
  EXPECT_EQ(node(g, "Decoder_Block_0_Upsample").out, (graph::Shape{100, 128}));
  EXPECT_EQ(g.find_tensor("decoder.block.0.conv_t1.weight")->shape, (graph::Shape{32, 16, 8}));
  EXPECT_EQ(node(g, "Decoder_Conv_2").out, (graph::Shape{800, 1}));
}

}  // namespace
}  // namespace neurarch
