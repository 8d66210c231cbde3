// hygiene rules, each both ways.
#include <gtest/gtest.h>

#include "lint_test_support.hpp"

using namespace lint_test;
using neurarch::lint::Options;

TEST(LintHygiene, PositionsBelowSeq) {
  Options o;
  o.seq = 1024;
  auto found = of(lint(llama(), o, {.seq = 1024}), "positions-below-seq");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].fix.find("\"factor\": 4.0"), std::string::npos) << found[0].fix;
  o.seq = 256;
  EXPECT_FALSE(fires("positions-below-seq", llama(), o, {.seq = 256}));
  o.seq = 1024;
  EXPECT_FALSE(fires("positions-below-seq", llama({{"rope_scaling", {{"rope_type", "dynamic"}, {"factor", 2.0}}}}), o,
                     {.seq = 1024}));
  EXPECT_FALSE(fires("positions-below-seq", llama({{"rope_scaling", {{"rope_type", "linear"}, {"factor", 4.0}}}}), o,
                     {.seq = 1024}));
  // Learned tables cannot run past their rows at all: that is graph-forward's error, not this warning.
  auto gpt = lint(gpt2(), o, {.seq = 1024});
  EXPECT_TRUE(of(gpt, "positions-below-seq").empty());
  EXPECT_FALSE(of(gpt, "graph-forward").empty());
}

TEST(LintHygiene, DropoutWithLora) {
  Options lora;
  lora.lora = true;
  auto dropped = bert({{"hidden_dropout_prob", 0.1}});
  auto found = of(lint(dropped, lora), "dropout-with-lora");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("hidden_dropout_prob=0.1"), std::string::npos);
  EXPECT_FALSE(fires("dropout-with-lora", dropped));
  EXPECT_FALSE(fires("dropout-with-lora", bert(), lora));
}

TEST(LintHygiene, DepthScaledInit) {
  auto found = of(lint(llama({{"num_hidden_layers", 24}})), "depth-scaled-init");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, "info");
  EXPECT_NE(found[0].fix.find("0.0029"), std::string::npos) << found[0].fix;
  EXPECT_FALSE(fires("depth-scaled-init", llama()));
  EXPECT_FALSE(fires("depth-scaled-init", gpt2({{"n_layer", 24}})));           // GPT-2 scales c_proj by depth
  EXPECT_FALSE(fires("depth-scaled-init", dinov2({{"num_hidden_layers", 24}})));  // layer scale
  EXPECT_FALSE(fires("depth-scaled-init", bert({{"num_hidden_layers", 24}})));    // post-norm
  // T5 sets each projection's std from its fan-in, not one initializer_range.
  EXPECT_FALSE(fires("depth-scaled-init", {{"model_type", "t5"}, {"num_layers", 24}, {"d_model", 64}, {"d_ff", 128},
                                           {"num_heads", 4}, {"d_kv", 16}, {"vocab_size", 100}}));
  // Depth is counted per residual stream: a 12 + 12 pre-norm encoder-decoder has two 12-deep streams.
  const json mbart = {{"model_type", "mbart"}, {"encoder_layers", 12}, {"decoder_layers", 12}, {"d_model", 64},
                      {"encoder_attention_heads", 4}, {"decoder_attention_heads", 4}, {"encoder_ffn_dim", 128},
                      {"decoder_ffn_dim", 128}, {"vocab_size", 100}, {"max_position_embeddings", 64}};
  EXPECT_FALSE(fires("depth-scaled-init", mbart));
  auto deep = of(lint(with(mbart, {{"decoder_layers", 30}})), "depth-scaled-init");
  ASSERT_EQ(deep.size(), 1u);
  EXPECT_NE(deep[0].message.find("30 pre-norm"), std::string::npos) << deep[0].message;
}

TEST(LintHygiene, UnreadDimensionKey) {
  auto config = llama({{"n_head", 8}});
  config.erase("num_attention_heads");
  auto found = of(lint(config), "unread-dimension-key");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("n_head 8 is not read by llama"), std::string::npos) << found[0].message;
  EXPECT_EQ(found[0].fix, "rename n_head to num_attention_heads");
  // A stale duplicate next to the key the family reads changes nothing.
  EXPECT_FALSE(fires("unread-dimension-key", llama({{"n_head", 8}})));
  EXPECT_FALSE(fires("unread-dimension-key", gpt2({{"n_ctx", 256}})));
}

TEST(LintHygiene, LabelMapsInconsistent) {
  const json five = {{"0", "a"}, {"1", "b"}, {"2", "c"}, {"3", "d"}, {"4", "e"}};
  auto classifier = bert({{"architectures", {"BertForSequenceClassification"}}, {"id2label", five}});
  EXPECT_TRUE(fires("label-maps-inconsistent", with(classifier, {{"num_labels", 3}})));
  EXPECT_TRUE(fires("label-maps-inconsistent", with(classifier, {{"label2id", {{"a", 0}}}})));
  EXPECT_FALSE(fires("label-maps-inconsistent", with(classifier, {{"num_labels", 5}})));
  // The base model has no classifier for the maps to size.
  EXPECT_FALSE(fires("label-maps-inconsistent",
                     with(classifier, {{"num_labels", 3}, {"architectures", {"BertModel"}}})));
}
