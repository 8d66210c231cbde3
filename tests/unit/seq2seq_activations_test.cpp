// What the planner keeps for the encoder-decoder and audio node rules, checked by hand on graphs
// small enough to count: cross-attention over the encoder's states, T5's position bias and its
// eager-only attention, 1-D convolutions, and the dropout inside a feed-forward.
#include <gtest/gtest.h>

#include "blocks/blocks.hpp"
#include "blocks/conv.hpp"
#include "blocks/seq2seq.hpp"
#include "plan/activations.hpp"
#include "plan/cost.hpp"
#include "plan/weights.hpp"

using namespace neurarch;
using namespace neurarch::plan;

namespace {

plan::Setup fp32_full() {
  plan::Setup s;
  s.precision = plan::Precision::Fp32;
  return s;
}

std::int64_t bytes_of(const graph::Graph& g, const ActivationModel& m, const std::string& node) {
  for (const auto& n : g.nodes)
    if (n.name == node) return m.nodes[static_cast<std::size_t>(n.index)].bytes_per_sample();
  ADD_FAILURE() << "no node " << node;
  return -1;
}

bool keeps(const graph::Graph& g, const ActivationModel& m, const std::string& node, const std::string& what) {
  for (const auto& n : g.nodes)
    if (n.name == node)
      for (const auto& t : m.nodes[static_cast<std::size_t>(n.index)].saved)
        if (t.what.find(what) != std::string::npos) return true;
  return false;
}

ActivationModel activations(const graph::Graph& g, const Setup& s) { return saved_activations(g, s, weight_roles(g, s)); }

// Encoder: 5 tokens -> embedding (10 x 8) -> LayerNorm (the memory). Decoder: 3 tokens ->
// embedding -> two cross-attention layers (2 heads of 4) over the memory.
graph::Graph two_cross_attentions() {
  graph::GraphBuilder b;
  auto src = b.input({5}, "tokens");
  auto memory = blocks::token_embedding(b, src, "Embedding", graph::Scope("enc.embed"), 10, 8);
  memory = blocks::norm(b, memory, "Memory", {graph::Scope("enc.norm")});
  auto tgt = b.input({3}, "tokens", "decoder_input_ids");
  auto x = blocks::token_embedding(b, tgt, "Decoder_Embedding", graph::Scope("dec.embed"), 10, 8);
  for (int i = 0; i < 2; ++i) {
    graph::Scope a = graph::Scope("dec.cross") / i;
    x = blocks::cross_attention(b, x, memory, "Cross_" + std::to_string(i),
                                {.hidden = 8, .heads = 2, .module = a, .q = a / "q", .k = a / "k", .v = a / "v",
                                 .o = a / "o"});
  }
  return b.finish(x);
}

}  // namespace

TEST(CrossAttentionRule, EncoderStatesAreKeptOnceInFp32AndCastPerLayerUnderAutocast) {
  auto g = two_cross_attentions();
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto& cross = *g.nodes[static_cast<std::size_t>(g.nodes.size() - 2)].attention;
  EXPECT_EQ(cross.query_len, 3);
  EXPECT_EQ(cross.kv_len, 5);

  auto fp32 = activations(g, fp32_full());
  // q input 3x8, q 3x8, k/v of the 5 encoder states 2x5x8, SDPA output 3x8, log-sum-exp 2x3,
  // output-projection input 3x8 (fp32); the first layer also keeps the encoder states 5x8.
  const std::int64_t per_layer = (24 + 24 + 80 + 24 + 6 + 24) * 4;
  EXPECT_EQ(bytes_of(g, fp32, "Cross_0"), per_layer + 40 * 4);
  EXPECT_EQ(bytes_of(g, fp32, "Cross_1"), per_layer);

  plan::Setup autocast;  // bf16 autocast, full fine-tuning, SDPA
  auto bf16 = activations(g, autocast);
  // Each layer's k and v casts the fp32 encoder states separately: 2 x 5x8 bf16.
  const std::int64_t cast_layer = (24 + 24 + 80 + 24 + 24) * 2 + 6 * 4 + 2 * 40 * 2;
  EXPECT_EQ(bytes_of(g, bf16, "Cross_0"), cast_layer);
  EXPECT_EQ(bytes_of(g, bf16, "Cross_1"), cast_layer);
}

TEST(CrossAttentionRule, EagerScoresAreQueryByEncoderLength) {
  auto g = two_cross_attentions();
  plan::Setup s = fp32_full();
  s.attention = AttentionImpl::Eager;
  auto m = activations(g, s);
  // SDPA's output and log-sum-exp give way to the 2 x 3 x 5 probabilities.
  const std::int64_t per_layer = (24 + 24 + 80 + 2 * 3 * 5 + 24) * 4;
  EXPECT_EQ(bytes_of(g, m, "Cross_1"), per_layer);
}

TEST(RelativePositionBiasRule, KeepsBucketIndicesWhenTrainedAndForcesEagerScores) {
  graph::GraphBuilder b;
  auto x = b.input({4}, "tokens");
  x = blocks::token_embedding(b, x, "Embedding", graph::Scope("embed"), 10, 8);
  auto bias = blocks::relative_position_bias(b, x, "Bias", {graph::Scope("attn.relative_attention_bias"), 32, 2});
  EXPECT_EQ(bias.shape, (graph::Shape{2, 4, 4}));
  graph::Scope a("attn");
  auto h = blocks::attention(b, x, "Attention",
                             {.hidden = 8, .heads = 2, .module = a, .q = a / "q", .k = a / "k", .v = a / "v", .o = a / "o"});
  b.at(h).attention->sdpa = false;
  blocks::add_score_bias(b, h, bias);
  auto g = b.finish(h);
  ASSERT_NE(g.find_tensor("attn.relative_attention_bias.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("attn.relative_attention_bias.weight")->shape, (graph::Shape{32, 2}));

  auto full = activations(g, fp32_full());
  EXPECT_EQ(bytes_of(g, full, "Bias"), 4 * 4 * 8);
  // --attention sdpa, but this attention has only the eager path: probabilities are kept.
  EXPECT_TRUE(keeps(g, full, "Attention", "attention probabilities"));
  EXPECT_FALSE(keeps(g, full, "Attention", "log-sum-exp"));
  EXPECT_FALSE(full.notes.empty());

  plan::Setup lora = fp32_full();
  lora.mode = Mode::LoRA;
  EXPECT_EQ(bytes_of(g, activations(g, lora), "Bias"), 0);
}

TEST(Conv1dRule, KeepsItsInputAndActivationAndCostsOutputPositions) {
  graph::GraphBuilder b;
  auto wave = b.input({16}, "audio");
  auto x = blocks::conv1d(b, wave, "Conv",
                          {.module = graph::Scope("conv"), .in_channels = 1, .out_channels = 4, .kernel = 4,
                           .stride = 2, .activation = "gelu"},
                          blocks::TimeLayout::Mono);
  EXPECT_EQ(x.shape, (graph::Shape{7, 4}));  // (16 - 4) / 2 + 1 frames
  auto g = b.finish(x);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("conv.weight")->shape, (graph::Shape{4, 1, 4}));

  auto m = activations(g, fp32_full());
  EXPECT_EQ(bytes_of(g, m, "Conv"), 16 * 4 + 7 * 4 * 4);  // the waveform, the GELU input

  auto roles = weight_roles(g, fp32_full());
  const auto* w = g.find_tensor("conv.weight");
  const auto& role = roles[static_cast<std::size_t>(w - g.tensors.data())];
  EXPECT_TRUE(role.matmul);
  EXPECT_FALSE(role.lora_target);  // PEFT's all-linear leaves convolutions alone
  auto costs = node_costs(g, fp32_full());
  EXPECT_DOUBLE_EQ(costs[1].flops_forward, 2.0 * 7 * 16);
}

TEST(Conv1dRule, TooShortInputCannotRun) {
  graph::GraphBuilder b;
  auto wave = b.input({3}, "audio");
  auto x = blocks::conv1d(b, wave, "Conv",
                          {.module = graph::Scope("conv"), .in_channels = 1, .out_channels = 4, .kernel = 10, .stride = 5},
                          blocks::TimeLayout::Mono);
  auto g = b.finish(x);
  EXPECT_FALSE(g.forward.ok);
  EXPECT_EQ(blocks::conv1d_frames(16000, 10, 5), 3199);
}

TEST(FeedForwardRule, InnerDropoutKeepsAMask) {
  auto build = [](double inner) {
    graph::GraphBuilder b;
    auto x = b.input({4}, "tokens");
    x = blocks::token_embedding(b, x, "Embedding", graph::Scope("embed"), 10, 8);
    x = blocks::feed_forward(b, x, "FFN",
                             {.hidden = 8, .intermediate = 16, .activation = "relu", .module = graph::Scope("ff"),
                              .up = graph::Scope("ff.wi"), .down = graph::Scope("ff.wo"), .inner_dropout = inner});
    return b.finish(x);
  };
  auto with = build(0.1), without = build(0.0);
  plan::Setup s = fp32_full();
  EXPECT_EQ(bytes_of(with, activations(with, s), "FFN") - bytes_of(without, activations(without, s), "FFN"),
            4 * 16 * s.dropout_mask_bytes);
}
