// ModernBERT decoder: every ground-truth class, and the per-layer windows when layer_types is absent.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(ModernBertDecoderGraph, EveryThirdLayerAttendsGloballyWithHalfTheLocalWindow) {
  auto g = model::build_model(Config::parse(R"({"architectures": ["ModernBertDecoderForCausalLM"],
      "model_type": "modernbert-decoder", "num_hidden_layers": 4, "local_attention": 256})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  std::vector<std::int64_t> windows;
  for (const auto& n : g.nodes)
    if (n.attention) {
      windows.push_back(n.attention->window);
      EXPECT_TRUE(n.attention->causal);
    }
  EXPECT_EQ(windows, (std::vector<std::int64_t>{0, 128, 128, 0}));
  EXPECT_EQ(g.find_tensor("model.layers.0.attn_norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("decoder.weight")->tied_to, "model.embeddings.tok_embeddings.weight");
}
