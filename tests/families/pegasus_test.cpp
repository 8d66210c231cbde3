#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

TEST(PegasusPositions, StoredSinusoidsAreFrozen) {
  // PegasusSinusoidalPositionalEmbedding turns requires_grad off on its weight: counted, never trained.
  auto g = neurarch::model::build_model(neurarch::Config::parse(
      R"({"model_type": "pegasus", "architectures": ["PegasusModel"], "d_model": 32, "encoder_layers": 1, "decoder_layers": 1,
          "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64, "decoder_ffn_dim": 64,
          "vocab_size": 100, "max_position_embeddings": 40})",
      "config.json")).graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_TRUE(g.find_tensor("encoder.embed_positions.weight")->frozen);
  EXPECT_TRUE(g.find_tensor("decoder.embed_positions.weight")->frozen);
  EXPECT_FALSE(g.find_tensor("shared.weight")->frozen);
  EXPECT_EQ(g.frozen_parameter_count(), 2 * 40 * 32);
}
