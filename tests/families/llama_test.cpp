#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::NodeType;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

Config tiny(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
                           "num_hidden_layers": 2, "num_attention_heads": 8, "vocab_size": 100,
                           "max_position_embeddings": 256)" + extra + "}",
                       "config.json");
}

const neurarch::graph::Node& node(const neurarch::graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

}  // namespace

TEST(LlamaGraph, FewerKvHeadsMakeGroupedQueryAttention) {
  auto g = build_model(tiny(R"(, "num_key_value_heads": 2)")).graph;
  EXPECT_EQ(node(g, "Attention_0").type, NodeType::GroupedQueryAttention);
  EXPECT_EQ(g.find_tensor("layers.0.self_attn.k_proj.weight")->shape, (neurarch::graph::Shape{16, 64}));
  EXPECT_EQ(node(build_model(tiny()).graph, "Attention_0").type, NodeType::MultiHeadAttention);
}

TEST(LlamaGraph, ExplicitHeadDimNeedNotDivideHidden) {
  auto g = build_model(tiny(R"(, "num_attention_heads": 6, "head_dim": 16)")).graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("layers.0.self_attn.o_proj.weight")->shape, (neurarch::graph::Shape{64, 96}));
}

TEST(LlamaGraph, RopePastMaxPositionsIsANoteNotAFailure) {
  BuildOptions options;
  options.seq = 1024;
  auto g = build_model(tiny(), options).graph;
  EXPECT_TRUE(g.forward.ok);
  EXPECT_FALSE(g.notes.empty());
}

TEST(LlamaGraph, HeadsHaveTheirShapes) {
  BuildOptions options;
  options.seq = 32;
  options.class_name = "LlamaForSequenceClassification";
  EXPECT_EQ(build_model(tiny(R"(, "num_labels": 3)"), options).graph.nodes.back().out,
            (neurarch::graph::Shape{3}));
  options.class_name = "LlamaForTokenClassification";
  auto token = build_model(tiny(R"(, "num_labels": 3)"), options).graph;
  EXPECT_EQ(token.nodes.back().out, (neurarch::graph::Shape{32, 3}));
  EXPECT_NE(token.find_tensor("score.bias"), nullptr);
  options.class_name = "LlamaForQuestionAnswering";
  auto qa = build_model(tiny(), options).graph;
  EXPECT_EQ(qa.nodes.back().out, (neurarch::graph::Shape{32, 2}));
  EXPECT_NE(qa.find_tensor("transformer.embed_tokens.weight"), nullptr);
  options.class_name = "LlamaForCausalLM";
  auto lm = build_model(tiny(), options).graph;
  EXPECT_EQ(lm.nodes.back().out, (neurarch::graph::Shape{32, 100}));
  EXPECT_TRUE(lm.find_tensor("lm_head.weight")->saved());
}

TEST(LlamaGraph, CodeLlamaModelTypeBuildsLlama) {
  auto g = build_model(Config::parse(R"({"model_type": "code_llama", "hidden_size": 64, "intermediate_size": 128,
                                          "num_hidden_layers": 1, "num_attention_heads": 4, "vocab_size": 100})",
                                     "config.json"));
  EXPECT_EQ(g.family->id, "llama");
  EXPECT_NE(g.graph.find_tensor("layers.0.mlp.gate_proj.weight"), nullptr);
}
