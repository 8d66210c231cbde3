#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/memory.hpp"

namespace {

// microsoft/deberta-v3-base's config.json (published values).
neurarch::graph::Graph deberta_v3_base() {
  return neurarch::model::build_model(neurarch::Config::parse(R"({"model_type": "deberta-v2",
      "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
      "initializer_range": 0.02, "intermediate_size": 3072, "max_position_embeddings": 512,
      "relative_attention": true, "position_buckets": 256, "norm_rel_ebd": "layer_norm", "share_att_key": true,
      "pos_att_type": "p2c|c2p", "layer_norm_eps": 1e-7, "max_relative_positions": -1,
      "position_biased_input": false, "num_attention_heads": 12, "num_hidden_layers": 12, "type_vocab_size": 0,
      "vocab_size": 128100})", "config.json")).graph;
}

}  // namespace

TEST(DebertaV2Attention, DisentangledAttentionIsEagerWithBothRelativeTerms) {
  const auto g = deberta_v3_base();
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.saved_scalars(), 183'831'552);  // DebertaV2Model: the Hub's 184M
  const neurarch::graph::Node* attention = nullptr;
  for (const auto& n : g.nodes)
    if (n.attention && !attention) attention = &n;
  ASSERT_NE(attention, nullptr);
  EXPECT_FALSE(attention->attention->sdpa);  // bmm and softmax in the module itself
  EXPECT_EQ(attention->attention->relative_span, 512);  // 2 x position_buckets rows of rel_embeddings
  EXPECT_TRUE(attention->attention->c2p);
  EXPECT_TRUE(attention->attention->p2c);

  // Even when SDPA is asked for, the 12 x 512 x 512 probabilities are kept, and each relative term keeps
  // the table projected for 12 heads of 64 (bf16 under autocast); p2c keeps the key layer as well.
  neurarch::plan::MemoryModel memory(g, neurarch::plan::Setup{}, neurarch::plan::default_runtime());
  std::int64_t probabilities = 0, c2p = 0, p2c = 0, keys = 0;
  for (const auto& t : memory.activations().nodes.at(static_cast<std::size_t>(attention->index)).saved) {
    if (t.what == "attention probabilities (softmax output)") probabilities = t.bytes(1);
    if (t.what.starts_with("c2p:")) c2p = t.bytes(1);
    if (t.what == "p2c: relative table through the query projection") p2c = t.bytes(1);
    if (t.what == "p2c: key layer") keys = t.bytes(1);
  }
  EXPECT_EQ(probabilities, 12LL * 512 * 512 * 4);
  EXPECT_EQ(c2p, 12LL * 512 * 64 * 2);
  EXPECT_EQ(p2c, 12LL * 512 * 64 * 2);
  EXPECT_EQ(keys, 512LL * 768 * 2);
}
