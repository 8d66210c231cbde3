#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

TEST(ImageGptFamily, NormWeightsGetNoGradientAndTheHeadSkipsTheStartToken) {
  nlohmann::json config{{"model_type", "imagegpt"}, {"n_embd", 64}, {"n_layer", 2}, {"n_head", 4},
                        {"architectures", {"ImageGPTForCausalImageModeling"}}};
  const auto m = model::build_model(Config(config, "config.json"), {});
  const auto& g = m.graph;
  // ImageGPTLayerNorm multiplies by weight.data: autograd never reaches it.
  ASSERT_NE(g.find_tensor("transformer.h.0.ln_1.weight"), nullptr);
  EXPECT_TRUE(g.find_tensor("transformer.h.0.ln_1.weight")->frozen);
  EXPECT_TRUE(g.find_tensor("transformer.ln_f.weight")->frozen);
  EXPECT_EQ(g.find_tensor("transformer.ln_f.bias"), nullptr);
  EXPECT_FALSE(g.find_tensor("transformer.h.0.attn.c_attn.weight")->frozen);
  // 513 tokens in (512 colour clusters and the start token), 512 predicted, untied.
  EXPECT_EQ(g.find_tensor("transformer.wte.weight")->shape, (graph::Shape{513, 64}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->shape, (graph::Shape{512, 64}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
