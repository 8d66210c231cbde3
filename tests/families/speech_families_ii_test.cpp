// Graph facts of the speech families in docs/speech-families-ii.md that their tensor lists do not show: what
// each encoder reads, how long the sequences are, and which tables are shared. Tensors: tests/groundtruth_test.cpp.
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

graph::Graph build(nlohmann::json config, std::optional<std::int64_t> seq = std::nullopt) {
  model::BuildOptions options;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options).graph;
}

TEST(Pop2PianoFamily, EncoderReadsFeaturesBehindTheComposer) {
  const auto g = build({{"model_type", "pop2piano"}, {"d_model", 64}, {"d_kv", 16}, {"d_ff", 128}, {"num_layers", 2},
                        {"num_heads", 4}},
                       100);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 99 feature frames plus the composer's vector make the encoder's 100 positions.
  EXPECT_EQ(node(g, "Composer_Concat").out, (graph::Shape{100, 64}));
  EXPECT_EQ(g.find_tensor("mel_conditioner.embedding.weight")->shape, (graph::Shape{21, 64}));
  // The encoder's token table is saved once, as `shared`, which only the decoder reads.
  EXPECT_EQ(g.find_tensor("encoder.embed_tokens.weight")->tied_to, "shared.weight");
}

TEST(MctctFamily, SubsamplingAndTheDistanceTable) {
  nlohmann::json config = {{"model_type", "mctct"}, {"hidden_size", 32}, {"num_attention_heads", 2},
                           {"attention_head_dim", 8}, {"intermediate_size", 64}, {"num_hidden_layers", 1},
                           {"max_position_embeddings", 50}};
  const auto g = build(config);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Default input: 50 x 3 frames, padded by 3 on each side, kernel 7 stride 3: 50 frames, GLU-halved to 32.
  EXPECT_EQ(node(g, "Conv_Subsampler_0").out, (graph::Shape{50, 32}));
  EXPECT_EQ(g.find_tensor("encoder.layers.0.attention.self.distance_embedding.weight")->shape,
            (graph::Shape{99, 8}));
  // More frames than the table's rotation covers stop the forward pass.
  EXPECT_FALSE(build(config, 300).forward.ok);
}

TEST(CsmFamily, DepthDecoderRunsPerFrame) {
  const auto g = build({{"model_type", "csm"}, {"architectures", {"CsmForConditionalGeneration"}}}, 16);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Each of the 16 frames is a sequence of num_codebooks (32) positions for the depth decoder.
  const auto& attn = node(g, "Depth_Attention_0");
  ASSERT_TRUE(attn.attention);
  EXPECT_EQ(attn.attention->query_len, 32);
  EXPECT_EQ(attn.out, (graph::Shape{16, 32, 1024}));
  // tie_codebooks_embeddings: the backbone's audio table is the depth decoder's.
  EXPECT_EQ(g.find_tensor("backbone_model.embed_tokens.embed_audio_tokens.weight")->tied_to,
            "depth_decoder.model.embed_tokens.weight");
}

TEST(UnivNetFamily, HopOfTheUpsamplingStrides) {
  const auto g = build({{"model_type", "univnet"}}, 10);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Strides 8, 8 and 4: every mel frame becomes 256 samples.
  EXPECT_EQ(node(g, "Conv_Post").out, (graph::Shape{2560, 1}));
  // The kernel predictor runs at the mel rate: 32 -> 64 channels x kernel 3 x 4 layers per frame.
  EXPECT_EQ(node(g, "KP_Kernel_Conv_0").out, (graph::Shape{10, 24576}));
}

}  // namespace
}  // namespace neurarch
