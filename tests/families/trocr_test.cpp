#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

neurarch::graph::Graph build(const std::string& type, const std::string& cls, const std::string& extra,
                             std::int64_t seq) {
  auto c = neurarch::Config::parse(R"({"model_type": ")" + type + R"(", "d_model": 32, "encoder_layers": 2,
    "decoder_layers": 1, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 64,
    "decoder_ffn_dim": 64, "vocab_size": 50)" + extra + "}",
                                   "config.json");
  neurarch::model::BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  options.target_seq = 8;
  return neurarch::model::build_model(c, options).graph;
}

}  // namespace

TEST(TrOCRGraph, SinusoidalPositionsStoreNothing) {
  auto learned = build("trocr", "TrOCRForCausalLM", "", 16);
  EXPECT_NE(learned.find_tensor("model.decoder.embed_positions.weight"), nullptr);
  auto sinusoid =
      build("trocr", "TrOCRForCausalLM", R"(, "use_learned_position_embeddings": false, "layernorm_embedding": false,
        "cross_attention_hidden_size": 48)",
            16);
  EXPECT_EQ(sinusoid.find_tensor("model.decoder.embed_positions.weight"), nullptr);
  EXPECT_EQ(sinusoid.find_tensor("model.decoder.layernorm_embedding.weight"), nullptr);
  EXPECT_EQ(sinusoid.find_tensor("model.decoder.layers.0.encoder_attn.k_proj.weight")->shape,
            (neurarch::graph::Shape{32, 48}));
  EXPECT_EQ(sinusoid.find_tensor("output_projection.weight")->tied_to, "model.decoder.embed_tokens.weight");
}
