// Graph facts of the fifth batch of text families (docs/text-families-v.md) that the tensor lists do not show.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::graph::Graph;
using neurarch::graph::NodeType;
using neurarch::graph::Shape;

Graph build(const std::string& json, const std::string& cls, std::int64_t seq) {
  auto c = neurarch::Config::parse(json, "config.json");
  neurarch::model::BuildOptions options;
  options.class_name = cls;
  options.seq = seq;
  return neurarch::model::build_model(c, options).graph;
}

const neurarch::graph::Node* node(const Graph& g, const std::string& name) {
  auto it = std::find_if(g.nodes.begin(), g.nodes.end(), [&](const auto& n) { return n.name == name; });
  return it == g.nodes.end() ? nullptr : &*it;
}

constexpr const char* kDecision = R"({"model_type": "decision_transformer", "hidden_size": 32, "n_layer": 1,
  "n_head": 2, "n_positions": 12, "state_dim": 5, "act_dim": 3, "max_ep_len": 100})";

TEST(DecisionTransformerGraph, InterleavesThreeTokensPerTimestepWithZeroPositions) {
  // Zero position ids: 40 timesteps make 120 tokens, far past the 12 rows of wpe, and still run.
  auto g = build(kDecision, "DecisionTransformerModel", 40);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "Interleave_Return_State_Action")->out, (Shape{120, 32}));
  EXPECT_EQ(node(g, "Attention_0")->attention->query_len, 120);
  // inputs_embeds bypasses wte, which is still stored.
  EXPECT_EQ(g.find_tensor("encoder.wte.weight")->shape, (Shape{1, 32}));
  EXPECT_EQ(node(g, "Predict_Action")->out, (Shape{40, 3}));
  EXPECT_EQ(node(g, "Predict_Action")->activation, "tanh");
  EXPECT_EQ(g.inputs.size(), 4u);
}

TEST(DecisionTransformerGraph, DefaultLengthFillsThePositionTable) {
  auto c = neurarch::Config::parse(kDecision, "config.json");
  neurarch::model::BuildOptions options;
  auto g = neurarch::model::build_model(c, options).graph;
  EXPECT_EQ(g.input_shape, (Shape{4, 5}));  // n_positions 12 / 3 timesteps of 5 state dims
}

TEST(TrajectoryTransformerGraph, HeadGroupsLogitsByTransitionAndBlockSizeBounds) {
  const std::string json = R"({"model_type": "trajectory_transformer", "n_embd": 16, "n_layer": 1, "n_head": 2,
    "vocab_size": 10, "transition_dim": 4, "block_size": 30})";
  auto g = build(json, "TrajectoryTransformerModel", 30);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  // 30 tokens pad to 8 transitions of 4, each dimension scored over 11 bins.
  EXPECT_EQ(node(g, "LM_Head")->out, (Shape{8, 44}));
  EXPECT_EQ(g.find_tensor("head.weight")->shape, (Shape{4, 11, 16}));
  EXPECT_EQ(g.find_tensor("tok_emb.weight")->shape, (Shape{41, 16}));
  EXPECT_FALSE(node(g, "Attention_0")->attention->sdpa);
  EXPECT_FALSE(build(json, "TrajectoryTransformerModel", 31).forward.ok);
}

TEST(ErnieMGraph, PositionsStartAtRowTwo) {
  const std::string json = R"({"model_type": "ernie_m", "hidden_size": 16, "num_hidden_layers": 1,
    "num_attention_heads": 2, "intermediate_size": 32, "vocab_size": 50, "max_position_embeddings": 20})";
  EXPECT_TRUE(build(json, "ErnieMModel", 18).forward.ok);
  EXPECT_FALSE(build(json, "ErnieMModel", 19).forward.ok);
  auto relative = build(R"({"model_type": "ernie_m", "hidden_size": 16, "num_hidden_layers": 1,
    "num_attention_heads": 2, "intermediate_size": 32, "vocab_size": 50, "max_position_embeddings": 20,
    "position_embedding_type": "relative_key"})",
                        "ErnieMForTokenClassification", 8);
  EXPECT_EQ(relative.find_tensor("ernie_m.encoder.layers.0.self_attn.self_attn.distance_embedding.weight")->shape,
            (Shape{39, 8}));
  EXPECT_EQ(relative.find_tensor("ernie_m.pooler.dense.weight"), nullptr);
}

TEST(RealmGraph, EmbedderStoresAnUntiedLmHeadItNeverRuns) {
  const std::string json = R"({"model_type": "realm", "hidden_size": 16, "num_hidden_layers": 1,
    "num_attention_heads": 2, "intermediate_size": 32, "vocab_size": 50, "retriever_proj_size": 8})";
  auto g = build(json, "RealmEmbedder", 8);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_TRUE(g.find_tensor("cls.predictions.decoder.weight")->tied_to.empty());
  EXPECT_EQ(g.find_tensor("cls.predictions.decoder.bias")->tied_to, "cls.predictions.bias");
  EXPECT_EQ(g.nodes[static_cast<std::size_t>(g.nodes.back().inputs[0])].out, (Shape{8}));
  auto mlm = build(json, "RealmKnowledgeAugEncoder", 8);
  EXPECT_EQ(mlm.find_tensor("cls.predictions.decoder.weight")->tied_to, "realm.embeddings.word_embeddings.weight");
}

constexpr const char* kLongcat = R"({"model_type": "longcat_flash", "hidden_size": 16, "num_layers": 1,
  "num_attention_heads": 2, "ffn_hidden_size": 32, "expert_ffn_hidden_size": 8, "n_routed_experts": 4,
  "moe_topk": 3, "q_lora_rank": 8, "kv_lora_rank": 4, "qk_nope_head_dim": 4, "qk_rope_head_dim": 2,
  "v_head_dim": 4, "vocab_size": 50, "max_position_embeddings": 64)";

TEST(LongcatFlashGraph, IdentityExpertsWidenTheRouterAndThinTheWork) {
  auto g = build(std::string(kLongcat) + R"(, "zero_expert_num": 2})", "LongcatFlashForCausalLM", 16);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.find_tensor("model.layers.0.mlp.router.classifier.weight")->shape, (Shape{6, 16}));
  EXPECT_EQ(g.find_tensor("model.layers.0.mlp.router.e_score_correction_bias")->shape, (Shape{6}));
  EXPECT_EQ(g.find_tensor("model.layers.0.mlp.router.e_score_correction_bias")->dtype, neurarch::DType::F32);
  const auto* moe = node(g, "MoE_0");
  ASSERT_NE(moe, nullptr);
  EXPECT_EQ(moe->moe->experts, 4);
  EXPECT_EQ(moe->moe->top_k, 3);
  EXPECT_EQ(moe->moe->dispatched, 2);  // 3 picks among 4 real + 2 identity experts: 2 real on average
  // Each token's 2 real experts of 3 x 8 x 16 weights are active; the other 2 idle.
  auto none = build(std::string(kLongcat) + R"(, "zero_expert_num": null})", "LongcatFlashForCausalLM", 16);
  EXPECT_EQ(none.find_tensor("model.layers.0.mlp.router.classifier.weight")->shape, (Shape{4, 16}));
  EXPECT_EQ(g.parameter_count() - g.active_parameter_count(), 2 * 3 * 8 * 16);
  EXPECT_EQ(none.parameter_count() - none.active_parameter_count(), 1 * 3 * 8 * 16);
  // Two latent attentions and two dense MLPs per layer beside the shortcut MoE.
  EXPECT_NE(node(g, "Attention_0_1"), nullptr);
  EXPECT_EQ(g.find_tensor("model.layers.0.mlps.1.down_proj.weight")->shape, (Shape{16, 32}));
  EXPECT_TRUE(g.find_tensor("lm_head.weight")->tied_to.empty());
}

TEST(RagGraph, NeedsBothPartsAndNestsThemUnderTheirNames) {
  const std::string question = R"("question_encoder": {"model_type": "dpr", "hidden_size": 16, "num_hidden_layers": 1,
    "num_attention_heads": 2, "intermediate_size": 32, "vocab_size": 40})";
  const std::string generator = R"("generator": {"model_type": "bart", "d_model": 16, "encoder_layers": 1,
    "decoder_layers": 1, "encoder_attention_heads": 2, "decoder_attention_heads": 2, "encoder_ffn_dim": 32,
    "decoder_ffn_dim": 32, "vocab_size": 50, "max_position_embeddings": 64})";
  auto g = build("{\"model_type\": \"rag\", " + question + ", " + generator + "}", "RagTokenForGeneration", 12);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_NE(g.find_tensor("rag.question_encoder.question_encoder.bert_model.embeddings.word_embeddings.weight"),
            nullptr);
  EXPECT_EQ(g.find_tensor("rag.generator.lm_head.weight")->tied_to, "rag.generator.model.shared.weight");
  EXPECT_EQ(g.input_shape, (Shape{12}));
  EXPECT_THROW(build("{\"model_type\": \"rag\", " + question + "}", "RagModel", 12), std::exception);
}

TEST(CpmAntGraph, PromptTokensAndOneSharedPositionBias) {
  const std::string json = R"({"model_type": "cpmant", "hidden_size": 16, "num_attention_heads": 2, "dim_head": 4,
    "dim_ff": 32, "num_hidden_layers": 2, "vocab_size": 50, "prompt_types": 3, "prompt_length": 5,
    "segment_types": 4, "position_bias_num_buckets": 8})";
  auto g = build(json, "CpmAntForCausalLM", 10);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto* bias = node(g, "Segment_Position_Bias");
  ASSERT_NE(bias, nullptr);
  EXPECT_EQ(bias->out, (Shape{2, 15, 15}));  // 5 prompt tokens in front of 10
  for (const char* name : {"Attention_0", "Attention_1"}) {
    const auto* a = node(g, name);
    EXPECT_EQ(a->attention->query_len, 15);
    EXPECT_FALSE(a->attention->causal);
    EXPECT_NE(std::find(a->inputs.begin(), a->inputs.end(), bias->index), a->inputs.end());
  }
  EXPECT_EQ(g.find_tensor("cpmant.position_bias.relative_attention_bias")->shape, (Shape{24, 2}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->shape, (Shape{65, 16}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "cpmant.input_embedding.weight");
  EXPECT_EQ(node(g, "LM_Head")->out, (Shape{10, 65}));
}

TEST(GptSanJapaneseGraph, SwitchThenExtensionBlocks) {
  const std::string json = R"({"model_type": "gptsan-japanese", "d_model": 16, "d_ff": 32, "d_ext": 24, "d_spout": 8,
    "num_switch_layers": 2, "num_ext_layers": 1, "num_layers": 7, "num_heads": 2, "num_experts": 4, "vocab_size": 50,
    "max_position_embeddings": 64})";
  auto g = build(json, "GPTSanJapaneseForConditionalGeneration", 20);
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(node(g, "MoE_1")->moe->top_k, 1);
  EXPECT_EQ(node(g, "MoE_2"), nullptr);
  EXPECT_EQ(g.find_tensor("model.blocks.2.feed_forward.mlp.wi.bias")->shape, (Shape{24}));
  EXPECT_EQ(g.find_tensor("model.extra_position_embeddings.weight")->shape, (Shape{64, 16}));
  // The spout projects to num_switch_layers + num_ext_layers (not the file's num_layers) x 2 x d_model.
  EXPECT_EQ(g.find_tensor("model.spout.16.weight")->shape, (Shape{96, 8}));
  EXPECT_EQ(g.find_tensor("final_logits_bias")->shape, (Shape{1, 50}));
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "model.embed_tokens.weight");
}

}  // namespace
