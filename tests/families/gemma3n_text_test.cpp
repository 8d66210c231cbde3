// Graph facts of the Gemma 3n and Gemma 4 text stacks that the tensor lists alone do not show: AltUp's streams,
// the per-layer inputs, KV sharing and the widths that vary per layer. The tensors themselves are checked by
// tests/groundtruth_test.cpp (../shared/groundtruth and tests/data/reference/gemma4_text).
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::int64_t seq = 64) {
  model::BuildOptions options;
  options.seq = seq;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

nlohmann::json small_gemma3n() {
  return {{"model_type", "gemma3n_text"}, {"architectures", {"Gemma3nForCausalLM"}},
          {"hidden_size", 64},           {"intermediate_size", {128, 256, 128, 256, 128}},
          {"num_hidden_layers", 5},      {"num_attention_heads", 4},
          {"num_key_value_heads", 2},    {"head_dim", 16},
          {"vocab_size", 1000},          {"vocab_size_per_layer_input", 500},
          {"hidden_size_per_layer_input", 8}, {"altup_num_inputs", 3},
          {"laurel_rank", 4},            {"num_kv_shared_layers", 0}};
}

TEST(Gemma3nTextFamily, AltUpStreamsRunBesideTheActiveOne) {
  auto m = build(small_gemma3n());
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // Three streams of 64 side by side; the layer's attention and MLP see one.
  EXPECT_EQ(node(g, "AltUp_Streams").out, (graph::Shape{64, 3 * 64}));
  EXPECT_EQ(node(g, "AltUp_Predict_0").out, (graph::Shape{64, 3 * 64}));
  EXPECT_EQ(node(g, "Attention_0").out, (graph::Shape{64, 64}));
  EXPECT_EQ(node(g, "AltUp_Update_4").out, (graph::Shape{64, 3 * 64}));
  EXPECT_EQ(node(g, "AltUp_Mean").out, (graph::Shape{64, 64}));
  EXPECT_EQ(g.find_tensor("model.altup_projections.1.weight")->shape, (graph::Shape{64, 64}));
  EXPECT_EQ(g.find_tensor("model.altup_projections.2.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.0.altup.prediction_coefs.weight")->shape, (graph::Shape{9, 3}));
  EXPECT_EQ(g.find_tensor("model.layers.0.laurel.linear_left.weight")->shape, (graph::Shape{4, 64}));
}

TEST(Gemma3nTextFamily, PerLayerInputsAndWidths) {
  auto m = build(small_gemma3n());
  const auto& g = m.graph;
  // One table row holds every layer's 8-wide slice.
  EXPECT_EQ(g.find_tensor("model.embed_tokens_per_layer.weight")->shape, (graph::Shape{500, 5 * 8}));
  EXPECT_EQ(node(g, "Per_Layer_Inputs").out, (graph::Shape{64, 40}));
  EXPECT_EQ(node(g, "Per_Layer_RMSNorm").out, (graph::Shape{64, 5, 8}));
  EXPECT_EQ(node(g, "Per_Layer_Input_2").out, (graph::Shape{64, 8}));
  EXPECT_EQ(g.find_tensor("model.layers.1.mlp.up_proj.weight")->shape, (graph::Shape{256, 64}));
  EXPECT_EQ(g.find_tensor("model.layers.2.mlp.up_proj.weight")->shape, (graph::Shape{128, 64}));
  // Every 5th layer attends globally.
  EXPECT_EQ(node(g, "Attention_3").attention->window, 512);
  EXPECT_EQ(node(g, "Attention_4").attention->window, 0);
}

TEST(Gemma3nTextFamily, BadWidthListsAndSharingAreRefused) {
  auto short_list = small_gemma3n();
  short_list["intermediate_size"] = {128, 128};
  EXPECT_THROW(build(short_list), Error);
  // Sharing the last 4 layers leaves no full-attention layer to produce their keys and values.
  auto sharing = small_gemma3n();
  sharing["num_kv_shared_layers"] = 4;
  EXPECT_THROW(build(sharing), Error);
}

nlohmann::json small_gemma4() {
  nlohmann::json c = {{"model_type", "gemma4_text"},  {"architectures", {"Gemma4ForCausalLM"}},
                      {"hidden_size", 64},            {"intermediate_size", 128},
                      {"num_hidden_layers", 6},       {"num_attention_heads", 4},
                      {"num_key_value_heads", 2},     {"head_dim", 16},
                      {"global_head_dim", 32},        {"vocab_size", 1000},
                      {"hidden_size_per_layer_input", 8}, {"num_kv_shared_layers", 2},
                      {"use_double_wide_mlp", true}};
  // Layer 2 global; the config forces the last one global as well.
  c["layer_types"] = {"sliding_attention", "sliding_attention", "full_attention",
                      "sliding_attention", "sliding_attention", "sliding_attention"};
  return c;
}

TEST(Gemma4TextFamily, SharingLayersOwnNoKeysAndDoubleTheirMlp) {
  auto m = build(small_gemma4());
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_NE(g.find_tensor("model.layers.3.self_attn.k_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.4.self_attn.k_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.4.self_attn.v_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.4.self_attn.k_norm.weight"), nullptr);
  EXPECT_NE(g.find_tensor("model.layers.4.self_attn.q_norm.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.3.mlp.up_proj.weight")->shape, (graph::Shape{128, 64}));
  EXPECT_EQ(g.find_tensor("model.layers.4.mlp.up_proj.weight")->shape, (graph::Shape{256, 64}));
  // The last layer is forced global, with the wider global head.
  EXPECT_EQ(node(g, "Attention_5").attention->window, 0);
  EXPECT_EQ(node(g, "Attention_5").attention->head_dim, 32);
  EXPECT_EQ(g.find_tensor("model.layers.5.self_attn.q_proj.weight")->shape, (graph::Shape{4 * 32, 64}));
  EXPECT_EQ(g.find_tensor("model.layers.0.layer_scalar")->kind, graph::TensorKind::Buffer);
}

TEST(Gemma4TextFamily, SavedPerLayerConfigOverridesTheGlobalHead) {
  auto config = small_gemma4();
  config["attention_k_eq_v"] = true;
  config["num_kv_shared_layers"] = 0;
  config["per_layer_config"] = {{"2", {{"head_dim", 48}, {"num_key_value_heads", 1}}}};
  auto m = build(config);
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("model.layers.2.self_attn.k_proj.weight")->shape, (graph::Shape{48, 64}));
  EXPECT_EQ(g.find_tensor("model.layers.2.self_attn.v_proj.weight"), nullptr);  // keys serve as values
  // Layer 5 is forced global but has no override: the base head.
  EXPECT_EQ(g.find_tensor("model.layers.5.self_attn.k_proj.weight")->shape, (graph::Shape{2 * 16, 64}));
  config["per_layer_config"] = {{"9", {{"head_dim", 48}}}};
  EXPECT_THROW(build(config), Error);
}

}  // namespace
}  // namespace neurarch
