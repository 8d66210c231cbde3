#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"
#include "checkpoint/compare.hpp"
#include "plan/weights.hpp"
#include "render/render.hpp"
#include "report/report.hpp"

namespace neurarch {
namespace {

using ::testing::HasSubstr;

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {}, std::string cls = "") {
  model::BuildOptions options;
  options.seq = seq;
  options.class_name = std::move(cls);
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

// A small tower at 112 px with 14-px patches (an 8x8 grid) pooled to 16 tokens, and a 2-layer text model.
nlohmann::json small_gemma3() {
  return {{"model_type", "gemma3"},
          {"architectures", {"Gemma3ForConditionalGeneration"}},
          {"mm_tokens_per_image", 16},
          {"text_config", {{"hidden_size", 256}, {"intermediate_size", 512}, {"num_hidden_layers", 2},
                           {"num_attention_heads", 4}, {"num_key_value_heads", 2}, {"head_dim", 64},
                           {"vocab_size", 1000}, {"sliding_window", 32}}},
          {"vision_config", {{"hidden_size", 64}, {"intermediate_size", 128}, {"num_hidden_layers", 3},
                             {"num_attention_heads", 4}, {"image_size", 112}, {"patch_size", 14},
                             {"vision_use_head", false}}}};
}

TEST(Gemma3Family, TowerPooledProjectorAndTextModelInOneGraph) {
  auto m = build(small_gemma3(), 64);
  const auto& g = m.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "pixel_values");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{3, 112, 112}));
  EXPECT_EQ(g.inputs[1].name, "input_ids");
  EXPECT_EQ(g.input_kind, "tokens");
  // 64 patches of width 64 become an 8x8 map, pooled by 2 to 4x4 = 16 tokens.
  const auto* pool = node(g, "Projector_AvgPool");
  ASSERT_NE(pool, nullptr);
  EXPECT_EQ(pool->out, (graph::Shape{64, 4, 4}));
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(pool->inputs.front())).name, "Vision_Post_LayerNorm");
  EXPECT_EQ(node(g, "Projector_RMSNorm")->out, (graph::Shape{16, 64}));
  const auto* projection = node(g, "Projector_Projection");
  EXPECT_EQ(projection->out, (graph::Shape{16, 256}));
  EXPECT_EQ(g.find_tensor("model.multi_modal_projector.mm_input_projection_weight")->shape, (graph::Shape{64, 256}));
  // The text model, built by the gemma3_text family, reads the projected tokens at its embedding.
  const auto* embed = node(g, "LM_Token_Embedding");
  ASSERT_NE(embed, nullptr);
  ASSERT_EQ(embed->inputs.size(), 2u);
  EXPECT_EQ(embed->inputs[1], projection->index);
  EXPECT_NE(g.find_tensor("model.language_model.layers.1.self_attn.q_norm.weight"), nullptr);
  EXPECT_EQ(node(g, "LM_Attention_0")->attention->window, 32);
  EXPECT_EQ(node(g, "LM_Attention_0")->block, 3);
  // No probe head without vision_use_head; the LM head is tied to the text embedding.
  EXPECT_EQ(g.find_tensor("model.vision_tower.vision_model.head.probe"), nullptr);
  const auto* head = g.find_tensor("lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->tied_to, "model.language_model.embed_tokens.weight");
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{64, 1000}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

// The prompt is the main input though the pixels are declared first: the text report lists both.
TEST(Gemma3Family, TextReportListsPixelsAndPrompt) {
  report::Report r;
  r.graph = build(small_gemma3(), 64).graph;
  const auto text = render::text(r, {});
  EXPECT_NE(text.find("Input: tokens 64\n"), std::string::npos) << text.substr(0, 300);
  EXPECT_NE(text.find("pixel_values: pixels 3 × 112 × 112\n"), std::string::npos) << text.substr(0, 300);
  // The main input is the prompt, already on the "Input:" line: not listed twice.
  EXPECT_EQ(text.find("input_ids: tokens 64\n"), std::string::npos) << text.substr(0, 300);
}

// google/gemma-3-* files were saved before 4.52: language_model.model.*, vision_tower.*, multi_modal_projector.*
// at the top. 4.57 renames them on load, and so does the comparison.
TEST(Gemma3Family, OlderCheckpointLayoutIsComparedUnderTheLoadedNames) {
  const auto g = build(small_gemma3(), 64).graph;
  checkpoint::Checkpoint file;
  for (const auto& t : g.tensors) {
    if (!t.saved()) continue;
    std::string name = t.name;
    if (name.starts_with("model.language_model.")) name = "language_model.model." + name.substr(21);
    else if (name.starts_with("model.")) name = name.substr(6);
    file.tensors.push_back({.name = name, .dtype = t.dtype, .shape = t.shape});
    file.total_scalars += t.scalars();
  }
  file.tensors.push_back({.name = "language_model.model.extra.weight", .dtype = DType::F32, .shape = {4}});
  const auto diff = checkpoint::compare(g, file);
  EXPECT_TRUE(diff.missing.empty());
  EXPECT_TRUE(diff.mismatched.empty());
  ASSERT_EQ(diff.unexpected.size(), 1u);
  EXPECT_EQ(diff.unexpected[0].tensor.name, "model.language_model.extra.weight");
  ASSERT_FALSE(diff.notes.empty());
  EXPECT_THAT(diff.notes[0], HasSubstr("language_model.model. -> model.language_model."));
  // The layout 4.57 saves needs no renaming.
  checkpoint::Checkpoint current;
  for (const auto& t : g.tensors)
    if (t.saved()) current.tensors.push_back({.name = t.name, .dtype = t.dtype, .shape = t.shape});
  const auto same = checkpoint::compare(g, current);
  EXPECT_TRUE(same.exact());
  EXPECT_TRUE(same.notes.empty());
}

TEST(Gemma3Family, ProjectorIsAMatmulButNoLoraTarget) {
  auto m = build(small_gemma3(), 64);
  plan::Setup setup;
  const auto roles = plan::weight_roles(m.graph, setup);
  auto role = [&](const std::string& name) {
    for (std::size_t i = 0; i < m.graph.tensors.size(); ++i)
      if (m.graph.tensors[i].name == name) return roles[i];
    ADD_FAILURE() << name;
    return plan::WeightRole{};
  };
  // A bare nn.Parameter, not an nn.Linear: PEFT's all-linear leaves it alone.
  EXPECT_TRUE(role("model.multi_modal_projector.mm_input_projection_weight").matmul);
  EXPECT_FALSE(role("model.multi_modal_projector.mm_input_projection_weight").lora_target);
  EXPECT_TRUE(role("model.language_model.layers.0.self_attn.q_proj.weight").lora_target);
}

TEST(Gemma3Family, PromptMustHoldTheImageTokens) {
  auto m = build(small_gemma3(), 8);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("cannot hold the 16 image tokens"));
}

TEST(Gemma3Family, PoolingMustMatchTheImageTokens) {
  auto config = small_gemma3();
  config["mm_tokens_per_image"] = 9;  // 3 a side: 8 // 3 = 2, which pools to 4x4 = 16, not 9
  auto m = build(config, 64);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, HasSubstr("gives 16 image tokens, but the prompt holds mm_tokens_per_image = 9"));
  // The reference default: a 14x14 grid cannot give 16 tokens a side.
  auto defaults = build({{"model_type", "gemma3"}});
  EXPECT_FALSE(defaults.graph.forward.ok);
  EXPECT_THAT(defaults.graph.forward.reason, HasSubstr("kernel would be 14 // 16 = 0"));
}

TEST(Gemma3Family, ModelAndSequenceClassificationPrefixes) {
  auto base = build(small_gemma3(), 64, "Gemma3Model");
  EXPECT_NE(base.graph.find_tensor("language_model.embed_tokens.weight"), nullptr);
  EXPECT_NE(base.graph.find_tensor("vision_tower.vision_model.post_layernorm.weight"), nullptr);
  EXPECT_EQ(base.graph.find_tensor("lm_head.weight"), nullptr);
  auto config = small_gemma3();
  config["num_labels"] = 3;
  auto cls = build(config, 64, "Gemma3ForSequenceClassification");
  EXPECT_EQ(cls.graph.find_tensor("score.weight")->shape, (graph::Shape{3, 256}));
  EXPECT_EQ(cls.graph.nodes.back().out, (graph::Shape{3}));
}

// google/gemma-3-4b-it: a 896-px tower of 14-px patches (64x64 = 4096 patches) pooled by 4 to 256 tokens.
TEST(Gemma3Family, PublishedFourAndTwentySevenBillionConfigs) {
  nlohmann::json config = {
      {"architectures", {"Gemma3ForConditionalGeneration"}},
      {"model_type", "gemma3"},
      {"mm_tokens_per_image", 256},
      {"text_config", {{"hidden_size", 2560}, {"intermediate_size", 10240}, {"model_type", "gemma3_text"},
                       {"num_hidden_layers", 34}, {"rope_scaling", {{"factor", 8.0}, {"rope_type", "linear"}}},
                       {"sliding_window", 1024}}},
      {"vision_config", {{"hidden_size", 1152}, {"image_size", 896}, {"intermediate_size", 4304},
                         {"model_type", "siglip_vision_model"}, {"num_attention_heads", 16},
                         {"num_hidden_layers", 27}, {"patch_size", 14}, {"vision_use_head", false}}}};
  auto m = build(config);
  const auto& g = m.graph;
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "Vision_Post_LayerNorm")->out, (graph::Shape{4096, 1152}));
  EXPECT_EQ(node(g, "Projector_AvgPool")->out, (graph::Shape{1152, 16, 16}));
  EXPECT_EQ(node(g, "Projector_Projection")->out, (graph::Shape{256, 2560}));
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{2048}));
  // Published checkpoint: 4,300,079,472 scalars (the tied lm_head not stored).
  EXPECT_EQ(g.saved_scalars(), 4300079472);
  // google/gemma-3-27b-it: the same tower, a 62-layer text model with 128-wide heads: 27,432,406,640.
  config["text_config"] = {{"head_dim", 128}, {"hidden_size", 5376}, {"intermediate_size", 21504},
                           {"model_type", "gemma3_text"}, {"num_attention_heads", 32}, {"num_hidden_layers", 62},
                           {"num_key_value_heads", 16}, {"query_pre_attn_scalar", 168}, {"sliding_window", 1024}};
  auto big = build(config);
  EXPECT_TRUE(big.graph.forward.ok) << big.graph.forward.reason;
  EXPECT_EQ(big.graph.saved_scalars(), 27432406640);
}

}  // namespace
}  // namespace neurarch
