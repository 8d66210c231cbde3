// Graph facts of Gemma 4's whole model and its towers that the tensor lists alone do not show: which soft tokens
// reach the prompt, the pooled and sub-sampled lengths, the clipping bounds as buffers, and the refusals. The
// tensors themselves are checked by tests/groundtruth_test.cpp (tests/data/reference/gemma4, gemma4_vision,
// gemma4_audio).
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::int64_t seq = 2048) {
  model::BuildOptions options;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

nlohmann::json small_text() {
  return {{"model_type", "gemma4_text"}, {"hidden_size", 64},    {"intermediate_size", 128},
          {"num_hidden_layers", 2},      {"num_attention_heads", 4}, {"num_key_value_heads", 2},
          {"head_dim", 16},              {"global_head_dim", 32},  {"vocab_size", 1000},
          {"hidden_size_per_layer_input", 8}};
}

nlohmann::json small_vision() {
  return {{"model_type", "gemma4_vision"}, {"hidden_size", 32},       {"intermediate_size", 64},
          {"num_hidden_layers", 1},        {"num_attention_heads", 2}, {"num_key_value_heads", 2},
          {"head_dim", 16},                {"patch_size", 4},          {"position_embedding_size", 64},
          {"use_clipped_linears", true}};
}

nlohmann::json small_audio() {
  return {{"model_type", "gemma4_audio"}, {"hidden_size", 64}, {"num_hidden_layers", 1},
          {"num_attention_heads", 4},     {"subsampling_conv_channels", {128, 8}}, {"output_proj_dims", 48}};
}

nlohmann::json whole(bool vision, bool audio) {
  nlohmann::json c = {{"model_type", "gemma4"},
                      {"architectures", {"Gemma4ForConditionalGeneration"}},
                      {"text_config", small_text()}};
  c["vision_config"] = vision ? small_vision() : nlohmann::json(nullptr);
  if (audio) c["audio_config"] = small_audio();
  return c;
}

TEST(Gemma4Family, WithoutTowersTheLanguageModelAlone) {
  auto m = build(whole(false, false));
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.embed_vision.embedding_projection.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.language_model.layers.0.layer_scalar")->kind, graph::TensorKind::Buffer);
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "model.language_model.embed_tokens.weight");
}

TEST(Gemma4Family, BothTowersWriteSoftTokensIntoThePrompt) {
  auto m = build(whole(true, true));
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 280 soft tokens per image, each pooled from a 3 x 3 block of 4 x 4 x 3 patches.
  EXPECT_EQ(node(g, "Vision_Patch_Projection").out, (graph::Shape{280 * 9, 32}));
  EXPECT_EQ(node(g, "Embed_Vision_Projection").out, (graph::Shape{280, 64}));
  // 3000 mel frames, a quarter left after the two strided convolutions.
  EXPECT_EQ(node(g, "Audio_Subsample_Projection").out, (graph::Shape{750, 64}));
  EXPECT_EQ(node(g, "Embed_Audio_Projection").out, (graph::Shape{750, 64}));
  EXPECT_EQ(g.find_tensor("model.embed_audio.embedding_projection.weight")->shape, (graph::Shape{64, 48}));
  // The embedders' norm has no scale; the clipping bounds are saved scalar buffers.
  EXPECT_EQ(g.find_tensor("model.embed_vision.embedding_pre_projection_norm.weight"), nullptr);
  const auto* bound = g.find_tensor("model.vision_tower.encoder.layers.0.self_attn.q_proj.input_min");
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(bound->kind, graph::TensorKind::Buffer);
  EXPECT_TRUE(bound->shape.empty());
  EXPECT_NE(g.find_tensor("model.audio_tower.layers.0.lconv1d.linear_end.output_max"), nullptr);
  // The prompt embedding reads both towers' soft tokens.
  EXPECT_EQ(g.input_kind, "tokens");
}

TEST(Gemma4Family, StandardizedUnclippedVisionTower) {
  auto vision = small_vision();
  vision["use_clipped_linears"] = false;
  vision["standardize"] = true;
  auto m = build(vision, 70);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("encoder.layers.0.self_attn.q_proj.input_min"), nullptr);
  EXPECT_EQ(g.find_tensor("std_scale")->kind, graph::TensorKind::Buffer);
  // --seq sets the soft tokens: 70 of them, 630 patches.
  EXPECT_EQ(node(g, "Patch_Projection").out, (graph::Shape{630, 32}));
  EXPECT_EQ(node(g, "Pooler_Standardize").out, (graph::Shape{70, 32}));
}

TEST(Gemma4Family, AudioChannelsThatMissTheMelBinsCannotRun) {
  // input_proj_linear reads (channels[0] // 4) x channels[1] features; 128 mel bins flatten to 32 x channels[1].
  auto audio = small_audio();
  audio["subsampling_conv_channels"] = {64, 8};
  auto m = build(audio, 400);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_NE(m.graph.forward.reason.find("input_proj_linear"), std::string::npos) << m.graph.forward.reason;
  EXPECT_EQ(m.graph.find_tensor("subsample_conv_projection.input_proj_linear.weight")->shape,
            (graph::Shape{64, 16 * 8}));
  audio["subsampling_conv_channels"] = {128};
  EXPECT_THROW(build(audio), Error);
}

TEST(Gemma4Family, BuffersFollowTheModelsDtype) {
  // torch.tensor / torch.ones at construction take the default dtype, which from_config sets to the config's.
  auto config = whole(true, true);
  config["dtype"] = "bfloat16";
  config["vision_config"]["standardize"] = true;
  auto m = build(config);
  const auto& g = m.graph;
  for (const char* name : {"model.vision_tower.encoder.layers.0.mlp.up_proj.output_max", "model.vision_tower.std_scale",
                           "model.audio_tower.layers.0.self_attn.q_proj.input_min",
                           "model.language_model.layers.1.layer_scalar"}) {
    const auto* t = g.find_tensor(name);
    ASSERT_NE(t, nullptr) << name;
    EXPECT_EQ(t->dtype, DType::BF16) << name;
  }
}

}  // namespace
}  // namespace neurarch
