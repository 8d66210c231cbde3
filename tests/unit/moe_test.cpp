// Mixture-of-experts: active parameters per token, and the planner's split between what is held
// (every expert) and what follows the routed tokens (activations, FLOPs).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "blocks/moe.hpp"
#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/cost.hpp"
#include "plan/memory.hpp"
#include "render/render.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

using namespace neurarch;

namespace {

// mistralai/Mixtral-8x7B-v0.1's architecture (its published config.json values).
constexpr const char* kMixtral8x7B = R"({"architectures": ["MixtralForCausalLM"], "model_type": "mixtral",
  "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32, "num_attention_heads": 32,
  "num_key_value_heads": 8, "vocab_size": 32000, "max_position_embeddings": 32768, "num_local_experts": 8,
  "num_experts_per_tok": 2, "rope_theta": 1000000.0, "sliding_window": null, "tie_word_embeddings": false})";

// tokens -> embedding(10 x 8) -> MoE (experts x gated 8->16->8, top-k) -> LM head 8->10.
graph::Graph tiny_moe_lm(std::int64_t seq, std::int64_t experts, std::int64_t top_k) {
  graph::GraphBuilder b;
  auto x = b.input({seq}, "tokens");
  x = blocks::token_embedding(b, x, "Token_Embedding", graph::Scope("embed"), 10, 8);
  b.set_block(0);
  const graph::Scope m("moe");
  x = blocks::mixture_of_experts(b, x, "MoE_0",
                                 {.hidden = 8, .intermediate = 16, .experts = experts, .top_k = top_k,
                                  .activation = "silu", .module = m, .router = m / "gate",
                                  .experts_module = m / "experts"});
  b.set_block(-1);
  x = blocks::lm_head(b, x, "LM_Head", {.module = graph::Scope("lm_head"), .hidden = 8, .vocab = 10});
  return b.finish(x);
}

plan::Runtime exact_runtime() {
  plan::Runtime rt = plan::default_runtime();
  rt.allocator_block_bytes = 1;
  rt.fragmentation_fraction = 0;
  rt.cublas_workspace_bytes = 0;
  rt.cuda_context_bytes = 0;
  return rt;
}

plan::Setup fp32_full() {
  plan::Setup s;
  s.precision = plan::Precision::Fp32;
  return s;
}

int node_index(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n.index;
  return -1;
}

}  // namespace

TEST(MoEParameters, Mixtral8x7BTotalAndActiveFromTheArchitecture) {
  auto g = model::build_model(Config::parse(kMixtral8x7B, "config.json")).graph;
  ASSERT_TRUE(g.forward.ok);
  // Published: 46.7B parameters, 12.9B active per token (mistral.ai, "Mixtral of experts").
  EXPECT_EQ(g.saved_scalars(), 46'702'792'704);
  // One expert: w1, w3 [14336, 4096] and w2 [4096, 14336]. Each token skips 6 of 8 in 32 layers.
  const std::int64_t expert = 3LL * 14336 * 4096;
  EXPECT_EQ(g.active_parameter_count(), 46'702'792'704 - 32 * 6 * expert);
  EXPECT_EQ(g.active_parameter_count(), 12'879'925'248);
}

TEST(MoEParameters, DeepseekV3DefaultsTotalAndActive) {
  auto g = model::build_model(Config::parse(R"({"model_type": "deepseek_v3",
      "architectures": ["DeepseekV3ForCausalLM"]})", "config.json")).graph;
  ASSERT_TRUE(g.forward.ok);
  // Published: 671B parameters, 37B activated per token (DeepSeek-V3 technical report; the HF
  // checkpoint's extra 14B are the multi-token-prediction module, not part of this class).
  EXPECT_EQ(g.saved_scalars(), 671'026'419'200);
  // 58 MoE layers, each token skips 248 of 256 experts of 3 x 2048 x 7168.
  const std::int64_t expert = 3LL * 2048 * 7168;
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 58 * 248 * expert);
  EXPECT_EQ(g.saved_scalars() - g.parameter_count(), 58 * 256);  // e_score_correction_bias buffers
  EXPECT_EQ(g.active_parameter_count(), 37'552'282'624);
}

TEST(MoEParameters, DenseModelsAreFullyActive) {
  auto g = tiny_moe_lm(4, 4, 4);  // top-k = experts: nothing skipped
  EXPECT_EQ(g.active_parameter_count(), g.parameter_count());
  auto dense = model::build_model(Config::parse(R"({"model_type": "llama", "hidden_size": 64,
      "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100})",
                                                "config.json"))
                   .graph;
  EXPECT_FALSE(dense.has_experts());
  EXPECT_EQ(dense.active_parameter_count(), dense.parameter_count());
}

TEST(MoEParameters, SharedExpertAndDenseLayersStayActive) {
  // 4 layers, decoder_sparse_step 2, layer 3 forced dense: only layer 1 routes.
  auto g = model::build_model(Config::parse(R"({"model_type": "qwen2_moe", "hidden_size": 32,
      "intermediate_size": 64, "moe_intermediate_size": 16, "shared_expert_intermediate_size": 48,
      "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 100, "num_experts": 6,
      "num_experts_per_tok": 2, "decoder_sparse_step": 2, "mlp_only_layers": [3]})",
                                            "config.json"))
               .graph;
  ASSERT_TRUE(g.forward.ok);
  EXPECT_NE(g.find_tensor("layers.0.mlp.gate_proj.weight"), nullptr);
  EXPECT_NE(g.find_tensor("layers.2.mlp.gate_proj.weight"), nullptr);
  EXPECT_NE(g.find_tensor("layers.3.mlp.gate_proj.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("layers.1.mlp.gate.weight")->shape, (graph::Shape{6, 32}));
  EXPECT_EQ(g.find_tensor("layers.1.mlp.experts.5.down_proj.weight")->shape, (graph::Shape{32, 16}));
  EXPECT_EQ(g.find_tensor("layers.1.mlp.shared_expert.up_proj.weight")->shape, (graph::Shape{48, 32}));
  EXPECT_EQ(g.find_tensor("layers.1.mlp.shared_expert_gate.weight")->shape, (graph::Shape{1, 32}));
  EXPECT_EQ(g.find_tensor("layers.3.mlp.experts.0.up_proj.weight"), nullptr);
  int moe_nodes = 0;
  for (const auto& n : g.nodes)
    if (n.moe) ++moe_nodes;
  EXPECT_EQ(moe_nodes, 1);
  // Only the routed experts of layer 1 count less: 4 of 6 skipped, 3 x 16 x 32 each.
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 4 * 3 * 16 * 32);
}

TEST(MoEActivations, RoutedTermsFollowTokensTimesTopKByHand) {
  auto g = tiny_moe_lm(4, 4, 2);
  plan::MemoryModel m(g, fp32_full(), exact_runtime());
  const int moe = node_index(g, "MoE_0");
  // fp32, 4 tokens, 8 routed token-slots (top-2), hidden 8, expert width 16, 4 experts:
  const std::int64_t expected = 4 * 8 * 4     // router input
                                + 4 * 4 * 4   // router probabilities (fp32 softmax)
                                + 8 * 8       // top-k indices (int64)
                                + 8 * 4       // top-k routing weights
                                + 8 * 8       // token indices each expert gathers
                                + 8 * 8 * 4   // gathered expert inputs (one copy shared by w1 and w3)
                                + 8 * 16 * 4  // SiLU input
                                + 8 * 16 * 2 * 4  // act(gate) and up for their product
                                + 8 * 16 * 4      // down projection input
                                + 8 * 8 * 4;      // expert outputs for the routing-weight product
  EXPECT_EQ(m.node_activation_bytes(moe, 1), expected);
  EXPECT_EQ(m.node_activation_bytes(moe, 3), 3 * expected);
}

TEST(MoEActivations, MoreExpertsHoldMoreWeightsButNotMoreActivations) {
  auto small = tiny_moe_lm(4, 4, 2);
  auto large = tiny_moe_lm(4, 8, 2);
  plan::MemoryModel ms(small, fp32_full(), exact_runtime());
  plan::MemoryModel ml(large, fp32_full(), exact_runtime());
  const int moe = node_index(small, "MoE_0");
  // Only the router's [tokens, experts] probabilities grow with the expert count.
  EXPECT_EQ(ml.node_activation_bytes(moe, 1) - ms.node_activation_bytes(moe, 1), 4 * 4 * 4);
  // Weights, gradients and AdamW states hold every expert: 4 more experts and 4 more router rows.
  const std::int64_t extra = 4 * (3 * 8 * 16) + 4 * 8;
  EXPECT_EQ(ml.trainable_parameters() - ms.trainable_parameters(), extra);
  EXPECT_EQ(ml.static_terms().parameters - ms.static_terms().parameters, extra * 4);
  EXPECT_EQ(ml.static_terms().gradients - ms.static_terms().gradients, extra * 4);
  EXPECT_EQ(ml.static_terms().optimizer_state - ms.static_terms().optimizer_state, extra * 8);
  // Doubling top-k doubles the routed terms.
  auto top4 = tiny_moe_lm(4, 4, 4);
  plan::MemoryModel m4(top4, fp32_full(), exact_runtime());
  const std::int64_t fixed = 4 * 8 * 4 + 4 * 4 * 4;  // router input and probabilities
  EXPECT_EQ(m4.node_activation_bytes(moe, 1) - fixed, 2 * (ms.node_activation_bytes(moe, 1) - fixed));
}

TEST(MoECost, RoutedExpertFlopsFollowTopK) {
  auto g = tiny_moe_lm(4, 4, 2);
  auto costs = plan::node_costs(g, fp32_full());
  const auto& c = costs[static_cast<std::size_t>(node_index(g, "MoE_0"))];
  // Router: 2 x 4 tokens x [4, 8]; experts: each token runs 2 experts of 3 x 8 x 16 weights.
  EXPECT_DOUBLE_EQ(c.flops_forward, 2.0 * 4 * 32 + 2.0 * 4 * 2 * (3 * 8 * 16));
}

TEST(MoEReport, JsonCarriesActiveParametersAndExpertCounts) {
  const auto dir = std::filesystem::temp_directory_path() / "neurarch_moe_report_test";
  std::filesystem::create_directories(dir);
  const auto path = dir / "config.json";
  std::ofstream(path) << kMixtral8x7B;
  auto r = pipeline::trace(resolve::resolve(path.string(), {}), {});
  auto j = nlohmann::json::parse(render::json(r));
  EXPECT_EQ(j, render::to_json(r));
  EXPECT_EQ(j["parameters"]["derived"], 46'702'792'704);
  EXPECT_EQ(j["parameters"]["active_parameters"], 12'879'925'248);
  bool found = false;
  for (const auto& layer : j["layers"])
    if (layer.contains("moe")) {
      EXPECT_EQ(layer["moe"]["experts"], 8);
      EXPECT_EQ(layer["moe"]["top_k"], 2);
      found = true;
      break;
    }
  EXPECT_TRUE(found);
  const std::string text = render::text(r, {});
  EXPECT_NE(text.find("Active parameters per token: 12,879,925,248"), std::string::npos);
  std::filesystem::remove_all(dir);
}
