// Graph facts of DeepSeek-VL, DeepSeek-VL-Hybrid, Ovis2 and Janus that the tensor lists alone do not show: how many image
// tokens reach the prompt, the high-resolution projection shared by two maps, the visual tokenizer's regrouping,
// Janus's generation modules stored beside the forward, and the defaults that cannot run. The tensors are checked by tests/groundtruth_test.cpp.
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config) {
  model::BuildOptions options;
  options.seq = 1024;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

nlohmann::json small_llama() {
  return {{"model_type", "llama"}, {"hidden_size", 256},       {"intermediate_size", 512}, {"num_hidden_layers", 2},
          {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"vocab_size", 1000}};
}

nlohmann::json small_siglip() {
  return {{"model_type", "siglip_vision_model"}, {"hidden_size", 64},   {"intermediate_size", 128},
          {"num_hidden_layers", 2},              {"num_attention_heads", 4}, {"image_size", 224},
          {"patch_size", 16}};
}

TEST(DeepseekVLFamily, AlignedPatchesFillThePrompt) {
  auto m = build({{"model_type", "deepseek_vl"}, {"architectures", {"DeepseekVLForConditionalGeneration"}},
                  {"vision_config", small_siglip()}, {"text_config", small_llama()}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "Aligner_Linear2").out, (graph::Shape{196, 256}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "");  // Llama's text config unties it
}

TEST(DeepseekVLHybridFamily, OneProjectionServesBothHighResolutionMaps) {
  auto m = build({{"model_type", "deepseek_vl_hybrid"},
                  {"architectures", {"DeepseekVLHybridForConditionalGeneration"}},
                  {"vision_config", small_siglip()},
                  {"text_config", small_llama()},
                  {"high_res_vision_config",
                   {{"model_type", "sam_vision_model"}, {"hidden_size", 64}, {"num_hidden_layers", 4},
                    {"num_attention_heads", 4}, {"output_channels", 32}, {"image_size", 256},
                    {"global_attn_indexes", {1, 3}}, {"window_size", 4}}}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Both maps resized to 4 x the 14 x 14 SigLIP grid and halved twice: 196 tokens of 4 x 32.
  EXPECT_EQ(node(g, "HighRes_Proj_conv2").out, (graph::Shape{128, 14, 14}));
  EXPECT_EQ(node(g, "HighRes_Global_Proj_conv2").out, (graph::Shape{128, 14, 14}));
  EXPECT_TRUE(node(g, "HighRes_Global_Proj_conv2").tensors.empty());  // the same weights, declared once
  EXPECT_EQ(g.find_tensor("model.high_res_vision_alpha")->shape, (graph::Shape{1}));
  EXPECT_EQ(node(g, "Aligner_Proj").out, (graph::Shape{196, 256}));
}

nlohmann::json ovis2(std::int64_t hidden, std::int64_t stride) {
  return {{"model_type", "ovis2"},
          {"architectures", {"Ovis2ForConditionalGeneration"}},
          {"hidden_size", hidden},
          {"vocab_size", 1000},
          {"text_config", {{"model_type", "qwen2"}, {"hidden_size", 256}, {"intermediate_size", 512},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 2},
                           {"vocab_size", 1000}}},
          {"vision_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 2},
                             {"num_attention_heads", 4}, {"vocab_size", 512}, {"hidden_stride", stride}}}};
}

TEST(Ovis2Family, VisualTokensAreDistributionsOverATable) {
  auto m = build(ovis2(256, 2));
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 16 x 16 patches of 14 px, 2 x 2 of them to a token; 512 - 5 indicator tokens scored.
  EXPECT_EQ(node(g, "Vision_Head_Linear").out, (graph::Shape{64, 507}));
  EXPECT_EQ(g.find_tensor("model.vision_tower.head_linear.weight")->shape, (graph::Shape{507, 4 * 64}));
  EXPECT_EQ(g.find_tensor("model.visual_embeddings_table.weight")->shape, (graph::Shape{512, 256}));
  EXPECT_EQ(g.find_tensor("model.vision_tower.head.cls_token"), nullptr);
}

TEST(Ovis2Family, ATableNarrowerThanTheTextModelCannotRun) {
  auto m = build(ovis2(128, 1));
  EXPECT_FALSE(m.graph.forward.ok);
}

TEST(JanusFamily, GenerationModulesAreStoredNotRun) {
  nlohmann::json vision = {{"hidden_size", 64}, {"num_hidden_layers", 2}, {"num_attention_heads", 4},
                           {"image_size", 64}, {"patch_size", 16}, {"projection_dim", 256}, {"depth", 3},
                           {"use_qk_norm", true}};
  nlohmann::json vq = {{"base_channels", 32}, {"channel_multiplier", {1, 2}}, {"num_res_blocks", 1},
                       {"latent_channels", 64}, {"num_embeddings", 128}, {"projection_dim", 256},
                       {"image_token_embed_dim", 256}};
  auto m = build({{"model_type", "janus"}, {"architectures", {"JanusForConditionalGeneration"}},
                  {"vision_config", vision}, {"vq_config", vq}, {"text_config", small_llama()}});
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 16 patches of 64 px / 16, through fc1 and two more layers of the aligner.
  EXPECT_EQ(node(g, "Aligner_Hidden_1").out, (graph::Shape{16, 256}));
  EXPECT_EQ(g.find_tensor("model.vision_model.encoder.layers.1.self_attn.q_norm.bias")->shape, (graph::Shape{64}));
  // The lowest resolution (level 1, 64 channels) has the attention blocks; the decoder visits it first.
  EXPECT_NE(g.find_tensor("model.vqmodel.encoder.down.1.attn.0.q.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.vqmodel.encoder.down.0.attn.0.q.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.vqmodel.decoder.up.0.block.1.conv1.weight")->shape, (graph::Shape{64, 64, 3, 3}));
  EXPECT_EQ(g.find_tensor("model.vqmodel.decoder.up.1.block.0.nin_shortcut.weight")->shape,
            (graph::Shape{32, 64, 1, 1}));
  EXPECT_EQ(node(g, "Generation_Modules_Stored").out, (graph::Shape{16, 256}));
}

}  // namespace
}  // namespace neurarch
