// speed rules, each both ways; vocabulary rules only where an LM head multiplies by the vocabulary.
#include <gtest/gtest.h>

#include "lint_test_support.hpp"

using namespace lint_test;

TEST(LintSpeed, VocabMultipleOf8) {
  auto found = of(lint(gpt2({{"vocab_size", 50257}})), "vocab-multiple-of-8");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].node, "LM_Head");
  EXPECT_NE(found[0].fix.find("50304"), std::string::npos);
  EXPECT_FALSE(fires("vocab-multiple-of-8", gpt2()));
  // Without an LM head the vocabulary is a lookup table: no GEMM to slow down.
  EXPECT_FALSE(fires("vocab-multiple-of-8", gpt2({{"vocab_size", 50257}, {"architectures", {"GPT2Model"}}})));
}

TEST(LintSpeed, VocabMultipleOf64) {
  EXPECT_TRUE(fires("vocab-multiple-of-64", llama({{"vocab_size", 520}})));
  EXPECT_FALSE(fires("vocab-multiple-of-64", llama()));
  EXPECT_FALSE(fires("vocab-multiple-of-64", llama({{"vocab_size", 513}})));  // the multiple-of-8 rule speaks
}

TEST(LintSpeed, HiddenMultipleOf8) {
  EXPECT_TRUE(fires("hidden-multiple-of-8", llama({{"hidden_size", 132}})));
  EXPECT_FALSE(fires("hidden-multiple-of-8", llama()));
}

TEST(LintSpeed, HiddenMultipleOf64) {
  EXPECT_TRUE(fires("hidden-multiple-of-64", llama({{"hidden_size", 136}})));
  EXPECT_FALSE(fires("hidden-multiple-of-64", llama()));
  EXPECT_FALSE(fires("hidden-multiple-of-64", llama({{"hidden_size", 132}})));
}

TEST(LintSpeed, IntermediateMultipleOf8) {
  auto found = of(lint(llama({{"intermediate_size", 250}})), "intermediate-multiple-of-8");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].fix.find("intermediate_size 256"), std::string::npos);
  EXPECT_FALSE(fires("intermediate-multiple-of-8", llama()));
}

TEST(LintSpeed, IntermediateMultipleOf64) {
  EXPECT_TRUE(fires("intermediate-multiple-of-64", llama({{"intermediate_size", 264}})));
  EXPECT_FALSE(fires("intermediate-multiple-of-64", llama()));
}

TEST(LintSpeed, HeadDimMultipleOf8) {
  EXPECT_TRUE(fires("head-dim-multiple-of-8", llama({{"head_dim", 36}})));
  EXPECT_TRUE(fires("head-dim-multiple-of-8", bert({{"hidden_size", 132}, {"num_attention_heads", 4}})));
  EXPECT_FALSE(fires("head-dim-multiple-of-8", llama()));
}

TEST(LintSpeed, HeadDimOverFlashLimit) {
  EXPECT_TRUE(fires("head-dim-over-flash-limit", llama({{"head_dim", 512}})));
  EXPECT_FALSE(fires("head-dim-over-flash-limit", llama({{"head_dim", 256}})));
}
