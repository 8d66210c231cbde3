// Llama 3.2 Vision; the tensors are checked against transformers 5.24.0 by the fixtures in tests/data/reference
// (tests/groundtruth_test.cpp).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

nlohmann::json small() {
  return {{"model_type", "mllama"},
          {"vision_config", {{"hidden_size", 32}, {"num_hidden_layers", 4}, {"num_global_layers", 2},
                             {"attention_heads", 4}, {"intermediate_size", 64}, {"vision_output_dim", 96},
                             {"image_size", 56}, {"patch_size", 14}, {"max_num_tiles", 4},
                             {"intermediate_layers_indices", {1, 3}}}},
          {"text_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 4},
                           {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"vocab_size", 1000},
                           {"cross_attention_layers", {1, 3}}}}};
}

TEST(MllamaFamily, CrossAttentionLayersReplaceSelfAttention) {
  model::BuildOptions options;
  options.class_name = "MllamaForConditionalGeneration";
  auto g = model::build_model(Config(small(), "config.json"), options).graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.language_model.layers.1.self_attn.q_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.language_model.layers.1.cross_attn.k_proj.weight")->shape, (graph::Shape{32, 64}));
  EXPECT_EQ(g.find_tensor("model.language_model.layers.3.cross_attn_mlp_gate")->shape, (graph::Shape{1}));
  EXPECT_NE(g.find_tensor("model.language_model.layers.2.self_attn.q_proj.weight"), nullptr);
  // 8 extra embedding rows; the head has vocab_size.
  EXPECT_EQ(g.find_tensor("model.language_model.embed_tokens.weight")->shape, (graph::Shape{1008, 64}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->shape, (graph::Shape{1000, 64}));
  // (56 / 14)^2 + 1 = 17 positions per tile; the tile table holds 4 tiles of them.
  EXPECT_EQ(g.find_tensor("model.vision_model.gated_positional_embedding.tile_embedding.weight")->shape,
            (graph::Shape{9, 4 * 17 * 32}));
  EXPECT_EQ(g.find_tensor("model.vision_model.global_transformer.layers.1.gate_ffn")->shape, (graph::Shape{1}));
  EXPECT_EQ(g.input_kind, "tokens");
}

TEST(MllamaFamily, IntermediateStatesMustMakeTheOutputWidth) {
  auto config = small();
  config["vision_config"]["vision_output_dim"] = 128;
  auto g = model::build_model(Config(config, "config.json")).graph;
  EXPECT_FALSE(g.forward.ok);
}

}  // namespace
}  // namespace neurarch
