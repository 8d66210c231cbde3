// InstructBLIP: the ground-truth class, and the Q-Former reading the instruction beside its queries.
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/memory.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {}) {
  model::BuildOptions options;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(InstructBlipFamily, QueriesAndInstructionShareSelfAttentionOnly) {
  const auto m = build({{"model_type", "instructblip"}}, 96);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 96 language-model positions: 32 query outputs and 64 text tokens, the instruction the Q-Former reads.
  const graph::GraphInput* instruction = nullptr;
  for (const auto& in : g.inputs)
    if (in.name == "qformer_input_ids") instruction = &in;
  ASSERT_NE(instruction, nullptr);
  EXPECT_EQ(instruction->shape, (graph::Shape{64}));
  EXPECT_EQ(node(g, "QFormer_Embedding_LayerNorm").out, (graph::Shape{96, 768}));
  const auto& self = *node(g, "QFormer_Attention_0").attention;
  EXPECT_EQ(self.query_len, 96);
  EXPECT_EQ(self.kv_len, 96);
  const auto& cross = *node(g, "QFormer_Cross_Attention_0").attention;
  EXPECT_EQ(cross.query_len, 32);
  EXPECT_EQ(cross.kv_len, 257);
  EXPECT_EQ(node(g, "QFormer_Query_FFN_1").out, (graph::Shape{32, 768}));
  EXPECT_EQ(node(g, "QFormer_Instruction_FFN_1").out, (graph::Shape{64, 768}));
  // Layer 1's self-attention reads both halves of layer 0's output.
  EXPECT_EQ(node(g, "QFormer_Attention_1").inputs.size(), 2u);
  EXPECT_EQ(node(g, "Language_Projection").out, (graph::Shape{32, 768}));
  EXPECT_NE(g.find_tensor("qformer.encoder.layer.11.intermediate.dense.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("qformer.layernorm.weight"), nullptr);  // BLIP-2's; InstructBLIP's is in embeddings
}

TEST(InstructBlipFamily, InstructionStopsAtTheQFormerPositions) {
  const auto m = build({{"model_type", "instructblip"}});  // 2048 positions by default
  for (const auto& in : m.graph.inputs)
    if (in.name == "qformer_input_ids") {
      EXPECT_EQ(in.shape, (graph::Shape{512}));
    }
  plan::MemoryModel memory(m.graph, plan::Setup{}, plan::default_runtime());
  // The instruction's FFN keeps its input like the queries' does: the Q-Former trains on both.
  const auto& acts = memory.activations().nodes;
  EXPECT_GT(acts.at(static_cast<std::size_t>(node(m.graph, "QFormer_Instruction_FFN_0").index)).bytes_per_sample(),
            acts.at(static_cast<std::size_t>(node(m.graph, "QFormer_Query_FFN_0").index)).bytes_per_sample());
}

}  // namespace
}  // namespace neurarch
