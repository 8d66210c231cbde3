// The rules select matmul weights by what they multiply (graph::Operand), not by where they stand in the node:
// checked by hand on graphs small enough to count. Declaration order changes nothing; cross-attention's k and v
// cost the encoder's positions; eager attention's memory traffic is the bytes its score rule keeps, read back.
#include <gtest/gtest.h>

#include "blocks/blocks.hpp"
#include "blocks/seq2seq.hpp"
#include "plan/activations.hpp"
#include "plan/cost.hpp"
#include "plan/attention_rules.hpp"
#include "plan/weights.hpp"

using namespace neurarch;
using namespace neurarch::plan;
using graph::Operand;
using graph::TensorRole;

namespace {

plan::Setup fp32_full() {
  plan::Setup s;
  s.precision = Precision::Fp32;
  return s;
}

// One self-attention over 4 tokens of width 8 (2 heads of 4), its four projections declared in `order`.
graph::Graph attention_declared(const std::vector<std::string>& order) {
  graph::GraphBuilder b;
  auto x = b.input({4}, "tokens");
  x = blocks::token_embedding(b, x, "Embedding", graph::Scope("embed"), 10, 8);
  auto a = b.node(graph::NodeType::MultiHeadAttention, "Attention", x.shape, {x}, graph::Scope("attn"));
  b.at(a).attention = graph::AttentionAttrs{.heads = 2, .kv_heads = 2, .head_dim = 4, .query_len = 4, .kv_len = 4};
  for (const auto& p : order)
    blocks::linear_tensors(b, a, graph::Scope("attn") / p, 8, 8, false, p == "o" ? Operand::Inner : Operand::Input);
  return b.finish(a);
}

std::int64_t attention_bytes(const graph::Graph& g, const plan::Setup& s) {
  const auto m = saved_activations(g, s, weight_roles(g, s));
  for (const auto& n : g.nodes)
    if (n.name == "Attention") return m.nodes[static_cast<std::size_t>(n.index)].bytes_per_sample();
  return -1;
}

}  // namespace

TEST(OperandRules, DeclarationOrderChangesNothing) {
  const auto usual = attention_declared({"q", "k", "v", "o"});
  const auto reversed = attention_declared({"o", "v", "k", "q"});
  for (const auto mode : {Mode::Full, Mode::LoRA}) {
    plan::Setup s;
    s.mode = mode;
    s.lora_dropout = 0.1;
    EXPECT_EQ(attention_bytes(usual, s), attention_bytes(reversed, s));
  }
  // Full fp32, SDPA: the input once (q, k and v share it), q/k/v, the output and log-sum-exp, o's input.
  EXPECT_EQ(attention_bytes(usual, fp32_full()), 4 * (4 * 8 + 4 * 24 + 4 * 8 + 2 * 4 + 4 * 8));
}

TEST(OperandRules, CrossAttentionKeysAndValuesCostTheEncoderPositions) {
  graph::GraphBuilder b;
  auto src = b.input({6}, "tokens");
  auto memory = blocks::token_embedding(b, src, "Encoder_Embedding", graph::Scope("enc"), 10, 8);
  auto tgt = b.input({2}, "tokens", "decoder_input_ids");
  auto x = blocks::token_embedding(b, tgt, "Decoder_Embedding", graph::Scope("dec"), 10, 8);
  const graph::Scope a("cross");
  x = blocks::cross_attention(b, x, memory, "Cross",
                              {.hidden = 8, .heads = 2, .module = a, .q = a / "q", .k = a / "k", .v = a / "v",
                               .o = a / "o", .qkv_bias = false, .o_bias = false});
  const auto g = b.finish(x);
  EXPECT_EQ(g.find_tensor("cross.k.weight")->operand, Operand::Memory);
  EXPECT_EQ(g.find_tensor("cross.o.weight")->operand, Operand::Inner);
  const auto costs = node_costs(g, fp32_full());
  const auto& c = costs.at(static_cast<std::size_t>(x.node));
  // q and o over the 2 decoder tokens, k and v over the 6 encoder states; QK^T and PV: 4 x heads x 2 x 6 x 4.
  EXPECT_DOUBLE_EQ(c.flops_forward, 2.0 * 2 * 64 * 2 + 2.0 * 6 * 64 * 2 + 4.0 * 2 * 2 * 6 * 4);
}

TEST(OperandRules, EagerScoreTrafficIsWhatTheScoreRuleKeepsReadBack) {
  const auto g = attention_declared({"q", "k", "v", "o"});
  plan::Setup s;  // amp-bf16
  s.attention = AttentionImpl::Eager;
  s.dropout_mask_bytes = 1;
  const graph::Node* node = nullptr;
  for (const auto& n : g.nodes)
    if (n.name == "Attention") node = &n;
  ASSERT_NE(node, nullptr);
  const auto& at = *node->attention;
  auto with_dropout = at;
  with_dropout.dropout = 0.1;
  // fp32 probabilities, their bf16 cast for PV; with dropout a bool mask too.
  const auto plain = score_rule(at, s, true, 2), dropped = score_rule(with_dropout, s, true, 2);
  auto per_score = [](const ScoreRule& r) {
    int bytes = 0;
    for (const auto& t : r.kept) bytes += t.count * t.bytes;
    return bytes;
  };
  EXPECT_EQ(per_score(plain), 4 + 2);
  EXPECT_EQ(per_score(dropped), 4 + 2 + 1);
  // The CPU's autocast normalises bf16 scores in bf16: probabilities, the dropout's bf16 noise and the dropped
  // probabilities PV keeps, 2 bytes each (BERT-large at 512 tokens, tools/measure_cpu/saved_tensors.py).
  plan::Setup cpu = s;
  cpu.autocast_softmax_fp32 = false;
  cpu.dropout_mask_bytes = 0;
  EXPECT_EQ(per_score(score_rule(at, cpu, true, 2)), 2);
  EXPECT_EQ(per_score(score_rule(with_dropout, cpu, true, 2)), 2 + 2 + 2);
  // A family whose eager path asks for an fp32 softmax casts it back before the dropout: fp32 probabilities, the
  // mask of the cast, the dropped cast; no second cast.
  auto fp32_softmax = with_dropout;
  fp32_softmax.softmax_fp32 = true;
  EXPECT_EQ(per_score(score_rule(fp32_softmax, cpu, false, 2)), 4 + 2 + 2);
  plan::Setup sdpa = s;
  sdpa.attention = AttentionImpl::SDPA;
  EXPECT_TRUE(score_rule(at, sdpa, true, 2).fused);
  // The cost model's extra traffic over SDPA: 2 heads x 4 x 4 scores, written and read.
  const auto eager_cost = node_costs(g, s), fused_cost = node_costs(g, sdpa);
  const auto i = static_cast<std::size_t>(node->index);
  EXPECT_DOUBLE_EQ(eager_cost[i].activation_bytes - fused_cost[i].activation_bytes, 2.0 * 4 * 4 * (4 + 2) * 2);
}
