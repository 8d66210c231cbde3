#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

TEST(MarianHeads, MtModelLeavesThePositionTablesOutOfItsCheckpoint) {
  auto c = neurarch::Config::parse(R"({"model_type": "marian", "d_model": 32, "encoder_layers": 1, "decoder_layers": 1,
                                       "encoder_attention_heads": 4, "decoder_attention_heads": 4,
                                       "encoder_ffn_dim": 64, "decoder_ffn_dim": 64, "vocab_size": 100,
                                       "decoder_vocab_size": 100, "pad_token_id": 99,
                                       "max_position_embeddings": 64})",
                                   "config.json");
  neurarch::model::BuildOptions options;
  options.class_name = "MarianMTModel";
  auto g = neurarch::model::build_model(c, options).graph;
  EXPECT_EQ(g.find_tensor("model.encoder.embed_positions.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("final_logits_bias")->shape, (neurarch::graph::Shape{1, 100}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "model.shared.weight");
  options.class_name = "MarianModel";
  EXPECT_NE(neurarch::model::build_model(c, options).graph.find_tensor("encoder.embed_positions.weight"), nullptr);
  options.class_name = "MarianMTModel";
  options.seq = 65;
  EXPECT_FALSE(neurarch::model::build_model(c, options).graph.forward.ok);
}
