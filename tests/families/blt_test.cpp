// BLT: the switches the ground truth's default config does not vary (no patcher, cross-attention after every
// encoder layer, tied embeddings) and what the graph says about patches and the frozen patcher.
#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using graph::Shape;

graph::Graph build(const std::string& json, std::int64_t seq = 64) {
  model::BuildOptions o;
  o.seq = seq;
  return model::build_model(Config::parse(json, "config.json"), o).graph;
}

// Local models 32 wide (4 heads), global 64 wide; two n-gram sizes of a 10-row hash vocabulary.
std::string config(const std::string& cls, const std::string& extra = "") {
  return R"({"architectures": [")" + cls + R"("], "model_type": "blt", "vocab_size": 260, "cross_attn_k": 2,
      "encoder_hash_byte_group_size": [3, 4], "encoder_hash_byte_group_vocab": 10, "patch_size": 4,
      "encoder_config": {"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 48},
      "global_config": {"hidden_size": 64, "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 96},
      "decoder_config": {"hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2, "intermediate_size": 48,
                         "hidden_size_global": 64},
      "patcher_config": {"hidden_size": 16, "num_attention_heads": 2, "num_hidden_layers": 1, "intermediate_size": 32})" +
         extra + "}";
}

TEST(BltGraph, PatchesAndTheFrozenPatcher) {
  const auto g = build(config("BltForCausalLM"));
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.encoder_hash_tok_embedding.weight")->shape, (Shape{2 * 10, 32}));
  EXPECT_EQ(g.find_tensor("model.local_encoder.patch_embedding_projection.weight")->shape, (Shape{64, 32}));
  EXPECT_EQ(g.find_tensor("model.local_decoder.patch_embedding_projection.weight")->shape, (Shape{64, 64}));
  // One encoder cross-attention (after the last layer), one per decoder layer.
  EXPECT_NE(g.find_tensor("model.local_encoder.cross_attn_layers.0.q_norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.local_encoder.cross_attn_layers.1.q_norm.weight"), nullptr);
  EXPECT_NE(g.find_tensor("model.local_decoder.cross_attn_layers.1.k_norm.weight"), nullptr);
  EXPECT_TRUE(g.find_tensor("model.patcher.lm_head.weight")->frozen);
  EXPECT_FALSE(g.find_tensor("model.local_encoder.embed_tokens.weight")->frozen);
  // 64 bytes in patches of 4 on average: 16 patches, 2 slots each for the cross-attention.
  bool seen = false;
  for (const auto& n : g.nodes) {
    if (n.name != "Encoder_Patch_Max_1") continue;
    EXPECT_EQ(n.out, (Shape{16, 32}));
    seen = true;
  }
  EXPECT_TRUE(seen);
}

TEST(BltGraph, WithoutThePatcherEveryByteIsAPatch) {
  const auto g = build(config("BltModel", R"(, "patch_in_forward": false)"));
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("patcher.lm_head.weight"), nullptr);
  bool seen = false;
  for (const auto& n : g.nodes) {
    if (n.name != "Encoder_Patch_Max_1") continue;
    EXPECT_EQ(n.out, (Shape{65, 32}));
    seen = true;
  }
  EXPECT_TRUE(seen);
}

TEST(BltGraph, TiedEmbeddingsKeepTheHead) {
  const auto g = build(config("BltForCausalLM", R"(, "tie_word_embeddings": true)"));
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_TRUE(g.find_tensor("lm_head.weight")->saved());
  EXPECT_FALSE(g.find_tensor("model.local_encoder.embed_tokens.weight")->saved());
}

}  // namespace
}  // namespace neurarch
