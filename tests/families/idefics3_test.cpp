// Idefics 3 / SmolVLM as whole models; the tensors are checked against transformers 5.24.0 by the fixtures in
// tests/data/reference (tests/groundtruth_test.cpp).
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

nlohmann::json small(const std::string& type, std::int64_t scale) {
  return {{"model_type", type},
          {"scale_factor", scale},
          {"vision_config", {{"hidden_size", 32}, {"intermediate_size", 64}, {"num_hidden_layers", 1},
                             {"num_attention_heads", 4}, {"patch_size", 16}, {"image_size", 512}}},
          {"text_config", {{"model_type", "llama"}, {"hidden_size", 48}, {"intermediate_size", 96},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"vocab_size", 500}}}};
}

TEST(Idefics3Family, PixelShuffleThenOneBiasFreeProjection) {
  model::BuildOptions options;
  options.class_name = "Idefics3ForConditionalGeneration";
  auto g = model::build_model(Config(small("idefics3", 4), "config.json"), options).graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  // 32 x 32 patches of a 512-px image, shuffled 4 x 4: 64 tokens of 16 x 32 features.
  EXPECT_EQ(g.find_tensor("model.connector.modality_projection.proj.weight")->shape, (graph::Shape{48, 512}));
  EXPECT_EQ(g.find_tensor("model.connector.modality_projection.proj.bias"), nullptr);
  EXPECT_NE(g.find_tensor("model.text_model.layers.1.mlp.down_proj.weight"), nullptr);
  EXPECT_TRUE(g.find_tensor("lm_head.weight")->saved());
}

TEST(Idefics3Family, SmolVlmIsTheSameModelUnderItsOwnClasses) {
  auto a = model::build_model(Config(small("idefics3", 2), "config.json")).graph;
  auto b = model::build_model(Config(small("smolvlm", 2), "config.json")).graph;
  EXPECT_EQ(a.saved_scalars(), b.saved_scalars());
}

TEST(Idefics3Family, AShuffleThatDoesNotDivideTheGridFails) {
  model::BuildOptions options;
  options.image_size = 48;  // 3 x 3 patches cannot be shuffled 2 x 2
  auto g = model::build_model(Config(small("idefics3", 2), "config.json"), options).graph;
  EXPECT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("pixel-shuffled"), std::string::npos) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
