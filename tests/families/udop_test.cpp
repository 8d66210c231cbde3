#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/family_graph.hpp"

namespace neurarch {
namespace {

using testing::find_node;

graph::Graph build(nlohmann::json config, const std::string& cls, std::optional<std::int64_t> seq = {}) {
  return testing::build_graph(Config(std::move(config), "config.json"), cls, seq);
}

TEST(UdopFamily, EncoderReadsTokensThenPatchesWithSummedBiases) {
  const auto g = build({{"model_type", "udop"}, {"num_layers", 2}, {"num_decoder_layers", 2}}, "UdopForConditionalGeneration",
                 64);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "tokens");
  // 224 / 16 = 14: 196 patches follow the 64 tokens.
  EXPECT_EQ(find_node(g, "Add_Cell_Embedding")->out, (graph::Shape{64 + 196, 1024}));
  // Block 0's 1d table plus the horizontal and vertical tables, summed once for every encoder block.
  EXPECT_EQ(find_node(g, "Relative_Bias_Sum_2")->out, (graph::Shape{16, 260, 260}));
  EXPECT_EQ(find_node(g, "Attention_1")->inputs.back(), find_node(g, "Relative_Bias_Sum_2")->index);
  EXPECT_EQ(find_node(g, "Decoder_Cross_Attention_0")->attention->kv_len, 260);
  EXPECT_EQ(g.find_tensor("encoder.embed_patches.proj.weight")->tied_to, "patch_embed.proj.weight");
  EXPECT_EQ(g.find_tensor("encoder.relative_bias.biases.0.relative_attention_bias.weight")->tied_to,
            "encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight");
  EXPECT_EQ(g.find_tensor("decoder.relative_bias.biases.2.relative_attention_bias.weight")->shape,
            (graph::Shape{32, 16}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "shared.weight");
}

TEST(UdopFamily, PrefixBucketsAddTwoRows) {
  const auto g = build({{"model_type", "udop"},
                  {"num_layers", 1},
                  {"relative_bias_args", {{{"type", "1d"}}, {{"type", "vertical"}, {"prefix_bucket", true}}}}},
                 "UdopModel", 16);
  EXPECT_EQ(g.find_tensor("encoder.relative_bias.biases.1.relative_attention_bias.weight")->shape,
            (graph::Shape{34, 16}));
  EXPECT_EQ(g.find_tensor("encoder.relative_bias.biases.2.relative_attention_bias.weight"), nullptr);
}

TEST(UdopFamily, OtherImageSizesCannotRun) {
  model::BuildOptions options;
  options.class_name = "UdopModel";
  options.image_size = 448;
  const auto m =
      model::build_model(Config(nlohmann::json{{"model_type", "udop"}, {"num_layers", 1}}, "config.json"), options);
  EXPECT_FALSE(m.graph.forward.ok);
}

}  // namespace
}  // namespace neurarch
