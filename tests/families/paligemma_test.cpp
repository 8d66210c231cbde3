#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {}) {
  model::BuildOptions options;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

// google/paligemma-3b-pt-224 (config.json as published).
nlohmann::json paligemma_3b() {
  return nlohmann::json::parse(R"({
    "architectures": ["PaliGemmaForConditionalGeneration"], "bos_token_id": 2, "eos_token_id": 1,
    "hidden_size": 2048, "ignore_index": -100, "image_token_index": 257152, "model_type": "paligemma",
    "pad_token_id": 0, "projection_dim": 2048,
    "text_config": {"hidden_size": 2048, "intermediate_size": 16384, "model_type": "gemma",
                    "num_attention_heads": 8, "num_hidden_layers": 18, "num_image_tokens": 256,
                    "num_key_value_heads": 1, "torch_dtype": "float32", "vocab_size": 257216},
    "torch_dtype": "float32", "transformers_version": "4.41.0.dev0",
    "vision_config": {"hidden_size": 1152, "intermediate_size": 4304, "model_type": "siglip_vision_model",
                      "num_attention_heads": 16, "num_hidden_layers": 27, "num_image_tokens": 256,
                      "patch_size": 14, "projection_dim": 2048, "projector_hidden_act": "gelu_fast",
                      "vision_use_head": false},
    "vocab_size": 257216})");
}

TEST(PaliGemmaFamily, ThreeBillionPublishedConfig) {
  auto m = build(paligemma_3b());
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{3, 224, 224}));
  EXPECT_EQ(g.input_kind, "tokens");
  // 16 x 16 patches, each projected to the text width, written into the prompt's embedding.
  const auto* projector = node(g, "Projector_Linear");
  EXPECT_EQ(projector->out, (graph::Shape{256, 2048}));
  EXPECT_EQ(node(g, "LM_Token_Embedding")->inputs.at(1), projector->index);
  EXPECT_EQ(g.find_tensor("vision_tower.vision_model.head.probe"), nullptr);
  EXPECT_EQ(g.find_tensor("language_model.lm_head.weight")->tied_to, "language_model.model.embed_tokens.weight");
  // By hand: tower 412,442,352 (no head) + projector 2,361,344 + Gemma 2,508,662,784 (tied head not stored).
  EXPECT_EQ(g.saved_scalars(), 2923466480);
}

TEST(PaliGemmaFamily, SubConfigsFallBackOnTheirOwnDefaults) {
  // Without vision_config the 224-px So400m tower without its head; with an empty one SigLIP's base
  // tower, head included.
  auto bare = build({{"model_type", "paligemma"}});
  EXPECT_EQ(bare.graph.find_tensor("vision_tower.vision_model.embeddings.patch_embedding.weight")->shape,
            (graph::Shape{1152, 3, 14, 14}));
  EXPECT_EQ(bare.graph.find_tensor("vision_tower.vision_model.head.probe"), nullptr);
  EXPECT_EQ(bare.graph.find_tensor("language_model.model.embed_tokens.weight")->shape, (graph::Shape{257152, 2048}));
  auto empty = build({{"model_type", "paligemma"}, {"vision_config", nlohmann::json::object()}});
  EXPECT_EQ(empty.graph.find_tensor("vision_tower.vision_model.embeddings.patch_embedding.weight")->shape,
            (graph::Shape{768, 3, 16, 16}));
  EXPECT_NE(empty.graph.find_tensor("vision_tower.vision_model.head.probe"), nullptr);
}

TEST(PaliGemmaFamily, GemmaTwoTextModelAndWidthMismatch) {
  auto config = paligemma_3b();
  config["text_config"]["model_type"] = "gemma2";
  auto m = build(config);
  EXPECT_NE(m.graph.find_tensor("language_model.model.layers.0.pre_feedforward_layernorm.weight"), nullptr);
  config["projection_dim"] = 1024;
  auto narrow = build(config);
  EXPECT_FALSE(narrow.graph.forward.ok);
  EXPECT_THAT(narrow.graph.forward.reason, HasSubstr("1024-wide image features into 2048-wide token embeddings"));
  config["text_config"]["model_type"] = "vit";  // no causal LM class
  EXPECT_THROW(build(config), Error);
}

TEST(PaliGemmaFamily, PromptMustHoldThePatches) {
  auto m = build(paligemma_3b(), 200);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("cannot hold the 256 image tokens"));
}

}  // namespace
}  // namespace neurarch
