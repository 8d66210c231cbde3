#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

nlohmann::json small_aria() {
  return {{"model_type", "aria"},
          {"projector_patch_to_query_dict", {{"16", 4}, {"64", 8}}},
          {"vision_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 2},
                             {"num_attention_heads", 4}, {"image_size", 56}, {"patch_size", 14}}},
          {"text_config", {{"model_type", "aria_text"}, {"hidden_size", 128}, {"intermediate_size", 64},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 4},
                           {"moe_num_experts", 4}, {"moe_topk", 2}, {"vocab_size", 1000}}}};
}

TEST(AriaFamily, PatchCountPicksTheLearnedQueries) {
  model::BuildOptions options;
  options.seq = 64;
  const auto m = model::build_model(Config(small_aria(), "config.json"), options);
  const auto& g = m.graph;
  // 16 patches -> the first 4 of the 8 stored queries cross-attend to them.
  EXPECT_EQ(g.find_tensor("multi_modal_projector.query")->shape, (graph::Shape{8, 64}));
  const auto* attn = node(g, "Projector_Cross_Attention");
  ASSERT_NE(attn, nullptr);
  ASSERT_TRUE(attn->attention.has_value());
  EXPECT_EQ(attn->attention->query_len, 4);
  EXPECT_EQ(attn->attention->kv_len, 16);
  EXPECT_EQ(node(g, "Projector_Linear_Out")->out, (graph::Shape{4, 128}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(AriaFamily, PatchCountMissingFromTheDictionaryCannotRun) {
  model::BuildOptions options;
  options.seq = 64;
  options.image_size = 42;  // 9 patches: the reference raises a KeyError
  const auto m = model::build_model(Config(small_aria(), "config.json"), options);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_NE(m.graph.forward.reason.find("projector_patch_to_query_dict"), std::string::npos) << m.graph.forward.reason;
}

}  // namespace
}  // namespace neurarch
