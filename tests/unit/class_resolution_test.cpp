// Which class a config builds when architectures[0] is not spelled as transformers spells it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(const char* architecture) {
  nlohmann::json c = {{"model_type", "llama"}, {"hidden_size", 64}, {"intermediate_size", 128},
                      {"num_hidden_layers", 1}, {"num_attention_heads", 4}, {"vocab_size", 100},
                      {"architectures", {architecture}}};
  return model::build_model(Config(c, "config.json"), {});
}

bool has_note(const graph::Graph& g, const std::string& text) {
  for (const auto& n : g.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(ClassResolution, SameNameInAnotherCaseIsTheSameClass) {
  // Phi-3.5-MoE's config says PhiMoEForCausalLM; transformers names it PhimoeForCausalLM.
  const auto m = build("LLaMAForCausalLM");
  EXPECT_EQ(m.class_name, "LlamaForCausalLM");
  EXPECT_NE(m.graph.find_tensor("lm_head.weight"), nullptr);
  EXPECT_FALSE(has_note(m.graph, "architectures[0]"));
}

TEST(ClassResolution, RemoteCodeClassBuildsTheClassWithTheSameHead) {
  const auto m = build("LlavaLlamaForCausalLM");
  EXPECT_EQ(m.class_name, "LlamaForCausalLM");
  EXPECT_TRUE(has_note(m.graph, "building LlamaForCausalLM, the class with the same head"));
}

TEST(ClassResolution, UnknownHeadFallsBackToTheBaseClassWithANote) {
  const auto m = build("LlamaForSomethingElse");
  EXPECT_EQ(m.class_name, "LlamaModel");
  EXPECT_TRUE(has_note(m.graph, "showing the base class LlamaModel"));
}

}  // namespace
}  // namespace neurarch
