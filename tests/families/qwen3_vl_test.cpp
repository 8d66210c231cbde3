// Qwen3-VL and Qwen3-VL-MoE; the tensors are checked against transformers 5.24.0 by the fixtures in
// tests/data/reference (tests/groundtruth_test.cpp).
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

nlohmann::json small(const std::string& type) {
  return {{"model_type", type},
          {"vision_config", {{"depth", 4}, {"hidden_size", 32}, {"intermediate_size", 64}, {"num_heads", 4},
                             {"out_hidden_size", 64}, {"num_position_embeddings", 64},
                             {"deepstack_visual_indexes", {1, 2}}}},
          {"text_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 2},
                           {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 16},
                           {"vocab_size", 1000}, {"num_experts", 4}, {"num_experts_per_tok", 2},
                           {"moe_intermediate_size", 32}}}};
}

TEST(Qwen3VlFamily, NativeGridDeepStackMergersAndQwen3Decoder) {
  model::BuildOptions options;
  options.class_name = "Qwen3VLForConditionalGeneration";
  auto g = model::build_model(Config(small("qwen3_vl"), "config.json"), options).graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  // The native grid (8 x 8 patches of 16 px: 128 px) is below the processor's 65536-pixel minimum, so the photo
  // is resized to 256 px: 16 x 16 patches, merged 2 x 2 into 64 image tokens.
  EXPECT_EQ(g.find_tensor("model.visual.pos_embed.weight")->shape, (graph::Shape{64, 32}));
  bool noted = false;
  for (const auto& note : g.notes)
    noted = noted || note.find("256 patches through the vision tower, 64 image tokens") != std::string::npos;
  EXPECT_TRUE(noted);
  EXPECT_EQ(g.find_tensor("model.visual.deepstack_merger_list.1.norm.weight")->shape, (graph::Shape{128}));
  EXPECT_EQ(g.find_tensor("model.visual.merger.norm.weight")->shape, (graph::Shape{32}));
  EXPECT_EQ(g.find_tensor("model.visual.deepstack_merger_list.2.norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.language_model.layers.0.self_attn.q_norm.weight")->shape, (graph::Shape{16}));
}

TEST(Qwen3VlFamily, MoeStoresTheExpertsFused) {
  auto g = model::build_model(Config(small("qwen3_vl_moe"), "config.json")).graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("language_model.layers.1.mlp.experts.gate_up_proj")->shape, (graph::Shape{4, 64, 64}));
  EXPECT_EQ(g.find_tensor("language_model.layers.1.mlp.experts.down_proj")->shape, (graph::Shape{4, 64, 32}));
  EXPECT_EQ(g.find_tensor("language_model.layers.1.mlp.gate.weight")->shape, (graph::Shape{4, 64}));
}

TEST(Qwen3VlFamily, ADeepStackLayerOutsideTheTowerFails) {
  auto config = small("qwen3_vl");
  config["vision_config"]["deepstack_visual_indexes"] = {1, 9};
  auto g = model::build_model(Config(config, "config.json")).graph;
  EXPECT_FALSE(g.forward.ok);
}

}  // namespace
}  // namespace neurarch
