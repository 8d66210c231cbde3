#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq, std::optional<std::int64_t> image) {
  model::BuildOptions options;
  options.seq = seq;
  options.image_size = image;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

nlohmann::json small_qwen2_vl() {
  return {{"model_type", "qwen2_vl"}, {"architectures", {"Qwen2VLForConditionalGeneration"}},
          {"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 2},
          {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"vocab_size", 100},
          {"vision_config", {{"depth", 2}, {"embed_dim", 32}, {"hidden_size", 64}, {"num_heads", 2}}}};
}

TEST(Qwen2VlFamily, PatchesMergedIntoThePrompt) {
  // 112 px: 8x8 patches of 14 px, merged 2x2 into 16 image tokens.
  auto m = build(small_qwen2_vl(), 32, 112);
  const auto& g = m.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "pixel_values");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{64, 3 * 2 * 14 * 14}));
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.find_tensor("visual.patch_embed.proj.weight")->shape, (graph::Shape{32, 3, 2, 14, 14}));
  EXPECT_EQ(g.find_tensor("visual.merger.mlp.0.weight")->shape, (graph::Shape{128, 128}));
  EXPECT_TRUE(node(g, "Vision_Attention_0")->attention->rotary);
  EXPECT_EQ(node(g, "Vision_Attention_1")->attention->query_len, 64);
  EXPECT_EQ(node(g, "Vision_Merger_Linear_2")->out, (graph::Shape{16, 64}));
  EXPECT_EQ(node(g, "LM_Token_Embedding")->inputs.back(), node(g, "Vision_Merger_Linear_2")->index);
  EXPECT_NE(g.find_tensor("model.layers.1.self_attn.q_proj.bias"), nullptr);
  EXPECT_NE(g.find_tensor("lm_head.weight"), nullptr);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  auto short_prompt = build(small_qwen2_vl(), 8, 112);
  EXPECT_THAT(short_prompt.graph.forward.reason, HasSubstr("cannot hold the 16 image tokens"));
}

TEST(Qwen2VlFamily, PhotoIsResizedToWholeMergedPatches) {
  // 100 px rounds to 112 (4 x 28), the processor's smart_resize.
  auto m = build(small_qwen2_vl(), 32, 100);
  EXPECT_EQ(m.graph.inputs[0].shape.front(), 64);
}

TEST(Qwen2VlFamily, MergerMustMatchTheLanguageModel) {
  auto config = small_qwen2_vl();
  config["vision_config"]["hidden_size"] = 48;
  auto m = build(config, 32, 112);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("48-wide features into a 64-wide language model"));
}

TEST(Qwen2VlFamily, Qwen25WindowsExceptFullAttentionBlocks) {
  nlohmann::json config{
      {"model_type", "qwen2_5_vl"}, {"architectures", {"Qwen2_5_VLForConditionalGeneration"}},
      {"text_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 2},
                       {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"vocab_size", 100}}},
      {"vision_config", {{"depth", 2}, {"hidden_size", 32}, {"out_hidden_size", 64}, {"intermediate_size", 48},
                         {"num_heads", 2}, {"window_size", 56}, {"fullatt_block_indexes", {1}}}}};
  auto m = build(config, 32, 112);
  const auto& g = m.graph;
  // 56-px windows: 2x2 merged patches, 16 patches attend together in block 0; block 1 sees all 64.
  EXPECT_EQ(node(g, "Vision_Attention_0")->attention->query_len, 16);
  EXPECT_EQ(node(g, "Vision_Attention_1")->attention->query_len, 64);
  EXPECT_EQ(node(g, "Vision_Attention_0")->out, (graph::Shape{64, 32}));
  EXPECT_EQ(g.find_tensor("model.visual.blocks.0.mlp.gate_proj.bias")->shape, (graph::Shape{48}));
  EXPECT_EQ(g.find_tensor("model.visual.merger.ln_q.weight")->shape, (graph::Shape{32}));
  EXPECT_EQ(g.find_tensor("model.visual.blocks.0.norm1.bias"), nullptr);  // RMSNorm
  EXPECT_NE(g.find_tensor("model.language_model.embed_tokens.weight"), nullptr);
  EXPECT_NE(g.find_tensor("lm_head.weight"), nullptr);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

// The published 7B configs: text keys at the top level, vision_config nested. Their totals are the Hub's
// safetensors totals of Qwen/Qwen2-VL-7B-Instruct and Qwen/Qwen2.5-VL-7B-Instruct.
TEST(Qwen2VlFamily, Published7BConfigs) {
  nlohmann::json text{{"hidden_act", "silu"}, {"hidden_size", 3584}, {"intermediate_size", 18944},
                      {"max_window_layers", 28}, {"num_attention_heads", 28}, {"num_hidden_layers", 28},
                      {"num_key_value_heads", 4}, {"sliding_window", 32768}, {"tie_word_embeddings", false},
                      {"use_sliding_window", false}, {"vocab_size", 152064},
                      {"rope_scaling", {{"type", "mrope"}, {"mrope_section", {16, 24, 24}}}}};
  auto v2 = text;
  v2["model_type"] = "qwen2_vl";
  v2["architectures"] = {"Qwen2VLForConditionalGeneration"};
  v2["max_position_embeddings"] = 32768;
  v2["vision_config"] = {{"depth", 32}, {"embed_dim", 1280}, {"mlp_ratio", 4}, {"num_heads", 16}, {"in_chans", 3},
                         {"hidden_size", 3584}, {"patch_size", 14}, {"spatial_merge_size", 2},
                         {"temporal_patch_size", 2}};
  auto m2 = build(v2, {}, {});
  EXPECT_EQ(m2.graph.saved_scalars(), 8'291'375'616);
  EXPECT_TRUE(m2.graph.forward.ok) << m2.graph.forward.reason;
  // The default photo: 980x980, 70x70 patches, 35x35 image tokens.
  EXPECT_EQ(m2.graph.inputs[0].shape, (graph::Shape{4900, 1176}));
  EXPECT_EQ(node(m2.graph, "Vision_Merger_Linear_2")->out, (graph::Shape{1225, 3584}));

  auto v25 = text;
  v25["model_type"] = "qwen2_5_vl";
  v25["architectures"] = {"Qwen2_5_VLForConditionalGeneration"};
  v25["max_position_embeddings"] = 128000;
  v25["vision_config"] = {{"depth", 32}, {"hidden_act", "silu"}, {"hidden_size", 1280}, {"intermediate_size", 3420},
                          {"num_heads", 16}, {"in_chans", 3}, {"out_hidden_size", 3584}, {"patch_size", 14},
                          {"spatial_merge_size", 2}, {"window_size", 112},
                          {"fullatt_block_indexes", {7, 15, 23, 31}}, {"temporal_patch_size", 2}};
  auto m25 = build(v25, {}, {});
  EXPECT_EQ(m25.graph.saved_scalars(), 8'292'166'656);
  EXPECT_TRUE(m25.graph.forward.ok) << m25.graph.forward.reason;
  EXPECT_EQ(node(m25.graph, "Vision_Attention_0")->attention->query_len, 64);
  EXPECT_EQ(node(m25.graph, "Vision_Attention_7")->attention->query_len, 4900);
}

}  // namespace
}  // namespace neurarch
