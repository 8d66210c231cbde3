// "Will it forward-pass": a No names the node and the reason, in words a user can act on.
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {
neurarch::graph::ForwardCheck check(const std::string& json, std::optional<std::int64_t> seq = std::nullopt) {
  auto c = neurarch::Config::parse(json, "c.json");
  neurarch::model::BuildOptions o;
  o.seq = seq;
  auto built = neurarch::model::build_model(c, o);
  auto f = built.graph.forward;
  if (!f.ok) f.reason = built.graph.nodes[static_cast<std::size_t>(f.node)].name + ": " + f.reason;
  return f;
}
}  // namespace

TEST(ForwardCheck, KvHeadsMustDivideQueryHeads) {
  auto f = check(R"({"model_type": "llama", "hidden_size": 384, "num_attention_heads": 6, "num_key_value_heads": 8,
                     "num_hidden_layers": 2, "intermediate_size": 512, "vocab_size": 100})");
  ASSERT_FALSE(f.ok);
  EXPECT_NE(f.reason.find("Attention_0: 8 KV heads do not divide 6 query heads"), std::string::npos) << f.reason;
}

TEST(ForwardCheck, HiddenMustDivideHeadsWhereTheReferenceRequiresIt) {
  auto f = check(R"({"model_type": "bert", "hidden_size": 390, "num_attention_heads": 7, "num_hidden_layers": 1,
                     "intermediate_size": 64, "vocab_size": 100})");
  ASSERT_FALSE(f.ok);
  EXPECT_NE(f.reason.find("hidden size 390 not divisible by 7 heads"), std::string::npos) << f.reason;
}

TEST(ForwardCheck, SequenceBeyondLearnedPositions) {
  auto f = check(R"({"model_type": "gpt2", "n_positions": 2048, "n_layer": 1, "n_embd": 64, "n_head": 4})", 4096);
  ASSERT_FALSE(f.ok);
  EXPECT_NE(f.reason.find("requested sequence 4096 exceeds 2048 learned positions"), std::string::npos) << f.reason;
  EXPECT_TRUE(check(R"({"model_type": "gpt2", "n_positions": 2048, "n_layer": 1, "n_embd": 64, "n_head": 4})", 2048).ok);
}

TEST(ForwardCheck, RotaryModelsRunPastTheirPositionsWithANote) {
  auto c = neurarch::Config::parse(R"({"model_type": "llama", "hidden_size": 64, "num_attention_heads": 4,
      "num_hidden_layers": 1, "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 128})",
                                   "c.json");
  neurarch::model::BuildOptions o;
  o.seq = 4096;
  auto built = neurarch::model::build_model(c, o);
  EXPECT_TRUE(built.graph.forward.ok);
  EXPECT_FALSE(built.graph.notes.empty());
}
