#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(nlohmann::json config, const std::string& cls = "", std::optional<std::int64_t> seq = {}) {
  model::BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

int count(const graph::Graph& g, const std::string& prefix) {
  int k = 0;
  for (const auto& n : g.nodes)
    if (n.name.starts_with(prefix)) ++k;
  return k;
}

TEST(Blip2Family, QueriesCrossAttendToTheImageAndFeedTheLanguageModel) {
  auto m = build({{"model_type", "blip-2"}}, "Blip2ForConditionalGeneration", 64);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_kind, "pixels");
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 224, 224}));
  // Cross-attention in every second Q-Former layer (0, 2, ..., 10), over the 257 image tokens.
  EXPECT_EQ(count(g, "QFormer_Cross_Attention_"), 6);
  const auto& cross = node(g, "QFormer_Cross_Attention_10");
  EXPECT_EQ(cross.attention->query_len, 32);
  EXPECT_EQ(cross.attention->kv_len, 257);
  EXPECT_FALSE(cross.attention->sdpa);
  EXPECT_EQ(g.find_tensor("qformer.encoder.layer.0.crossattention.attention.key.weight")->shape,
            (graph::Shape{768, 1408}));
  EXPECT_EQ(node(g, "Language_Projection").out, (graph::Shape{32, 768}));
  // The projected queries join the embedded prompt; the OPT decoder runs the 64 positions.
  bool joined = false;
  for (const auto& n : g.nodes)
    if (n.type == graph::NodeType::Embedding && n.inputs.size() == 2 &&
        n.inputs.back() == node(g, "Language_Projection").index)
      joined = true;
  EXPECT_TRUE(joined);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{64, 50272}));
  EXPECT_FALSE(g.notes.empty());  // no image_token_index: the queries go in front of input_ids
}

TEST(Blip2Family, ProjectionWidthIsTheLanguageModelsOwnDefault) {
  // Published configs are saved as a diff from the defaults: a Vicuna text_config has no hidden_size, and
  // LlamaConfig's 4096 is what language_projection writes.
  auto m = build({{"model_type", "blip-2"}, {"text_config", {{"model_type", "llama"}, {"num_hidden_layers", 2}}}},
                 "Blip2ForConditionalGeneration", 64);
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.find_tensor("language_projection.weight")->shape, (graph::Shape{4096, 768}));
}

TEST(Blip2Family, PromptMustHoldTheQueries) {
  auto m = build({{"model_type", "blip-2"}, {"image_token_index", 50265}}, "", 16);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("32 query outputs"));
}

TEST(Blip2Family, FlanT5IsBuiltAsASequenceToSequenceModel) {
  auto m = build({{"model_type", "blip-2"},
                  {"text_config", {{"model_type", "t5"}, {"d_model", 64}, {"d_ff", 128}, {"num_layers", 2},
                                   {"num_heads", 2}, {"d_kv", 32}, {"vocab_size", 100}}}},
                 "Blip2ForConditionalGeneration", 40);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("language_projection.weight")->shape, (graph::Shape{64, 768}));
  EXPECT_NE(g.find_tensor("language_model.shared.weight"), nullptr);
  EXPECT_NE(g.find_tensor("language_model.decoder.block.1.layer.0.SelfAttention.q.weight"), nullptr);
}

TEST(Blip2Family, UnknownLanguageModelNamesTheKey) {
  try {
    build({{"model_type", "blip-2"}, {"text_config", {{"model_type", "no-such-lm"}}}});
    FAIL() << "accepted an unknown language model";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("text_config"));
    EXPECT_THAT(e.what(), HasSubstr("no-such-lm"));
  }
}

TEST(Blip2QFormerFamily, TakesQueryEmbeddingsAndImageStates) {
  auto m = build({{"model_type", "blip_2_qformer"}, {"cross_attention_frequency", 3}}, "", 8);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "query_embeds");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{8, 768}));
  EXPECT_EQ(g.inputs[1].name, "encoder_hidden_states");
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{257, 1408}));
  EXPECT_EQ(count(g, "Cross_Attention_"), 4);  // layers 0, 3, 6, 9
  EXPECT_EQ(g.find_tensor("encoder.layer.0.intermediate.dense.weight"), nullptr);
  auto text = build({{"model_type", "blip_2_qformer"}, {"use_qformer_text_input", true}});
  EXPECT_EQ(text.graph.find_tensor("encoder.layer.0.intermediate.dense.weight")->shape, (graph::Shape{3072, 768}));
}

}  // namespace
}  // namespace neurarch
