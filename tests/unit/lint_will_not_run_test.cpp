// will-not-run rules, each both ways: a config that must trigger it and one that must not.
#include <gtest/gtest.h>

#include "lint_test_support.hpp"

using namespace lint_test;

TEST(LintWillNotRun, GraphForwardSurfacesTheGraphsOwnFailure) {
  auto found = of(lint(gpt2(), {}, {.seq = 512}), "graph-forward");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, "error");
  EXPECT_EQ(found[0].node, "Position_Embedding");
  EXPECT_NE(found[0].message.find("512"), std::string::npos);
  EXPECT_NE(found[0].fix.find("n_positions"), std::string::npos);
  EXPECT_FALSE(fires("graph-forward", gpt2(), {}, {.seq = 256}));
}

TEST(LintWillNotRun, GraphForwardGivesWayToTheSpecificRule) {
  auto findings = lint(bert({{"hidden_size", 130}}));
  EXPECT_EQ(of(findings, "heads-divide-hidden").size(), 1u);
  EXPECT_TRUE(of(findings, "graph-forward").empty());
}

TEST(LintWillNotRun, HeadsDivideHidden) {
  auto found = of(lint(gpt2({{"n_embd", 130}})), "heads-divide-hidden");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].message.substr(0, 29), "n_embd 130 is not divisible b");
  EXPECT_NE(found[0].fix.find("128 or 132"), std::string::npos);
  EXPECT_TRUE(fires("heads-divide-hidden", bert({{"hidden_size", 130}})));
  EXPECT_FALSE(fires("heads-divide-hidden", bert()));
  // Llama honours an explicit head_dim, which frees the attention width from hidden_size.
  EXPECT_FALSE(fires("heads-divide-hidden", llama({{"hidden_size", 136}, {"head_dim", 32}})));
}

TEST(LintWillNotRun, KvHeadsDivideHeads) {
  auto found = of(lint(llama({{"num_key_value_heads", 3}})), "kv-heads-divide-heads");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("num_key_value_heads 3"), std::string::npos);
  EXPECT_FALSE(fires("kv-heads-divide-heads", llama({{"num_key_value_heads", 2}})));
}

TEST(LintWillNotRun, HeadDimIgnored) {
  EXPECT_TRUE(fires("head-dim-ignored", qwen2({{"head_dim", 64}})));
  EXPECT_FALSE(fires("head-dim-ignored", qwen2({{"head_dim", 32}})));
  EXPECT_FALSE(fires("head-dim-ignored", llama({{"head_dim", 64}})));
}

TEST(LintWillNotRun, SpecialTokenOutsideVocab) {
  EXPECT_TRUE(fires("special-token-outside-vocab", llama({{"eos_token_id", 600}})));
  EXPECT_TRUE(fires("special-token-outside-vocab", llama({{"eos_token_id", {2, 700}}})));
  EXPECT_FALSE(fires("special-token-outside-vocab", llama({{"eos_token_id", {2, 511}}})));
  // BERT's graph fails on the same node; only the specific finding remains.
  auto findings = lint(bert({{"pad_token_id", 600}}));
  EXPECT_EQ(of(findings, "special-token-outside-vocab").size(), 1u);
  EXPECT_TRUE(of(findings, "graph-forward").empty());
}

TEST(LintWillNotRun, TiedEmbeddingShape) {
  auto r = trace(gpt2());
  EXPECT_TRUE(of(neurarch::lint::run(r), "tied-embedding-shape").empty());
  // No registered family ties mismatched shapes; break the tie by hand as a family bug would.
  for (auto& t : r.graph.tensors)
    if (!t.tied_to.empty()) t.shape = {512, 64};
  auto found = of(neurarch::lint::run(r), "tied-embedding-shape");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].node, "LM_Head");
}

TEST(LintWillNotRun, MoeTopK) {
  // The rule applies where the graph routes tokens to experts (Mixtral's family builds MoE nodes).
  auto moe = [](int k) {
    auto config = llama({{"num_local_experts", 8}, {"num_experts_per_tok", k}});
    config["model_type"] = "mixtral";
    config["architectures"] = {"MixtralForCausalLM"};
    return of(neurarch::lint::run(trace(config)), "moe-top-k");
  };
  EXPECT_EQ(moe(10).size(), 1u);
  EXPECT_EQ(moe(0).size(), 1u);
  EXPECT_TRUE(moe(2).empty());
  // A dense family never reads the keys, so they cannot stop it.
  EXPECT_FALSE(fires("moe-top-k", llama({{"num_local_experts", 8}, {"num_experts_per_tok", 10}})));
}

TEST(LintWillNotRun, SlidingWindowExceedsContext) {
  EXPECT_TRUE(fires("sliding-window-exceeds-context", mistral({{"sliding_window", 512}})));
  EXPECT_FALSE(fires("sliding-window-exceeds-context", mistral()));
  EXPECT_FALSE(fires("sliding-window-exceeds-context", mistral({{"sliding_window", nullptr}})));
}

TEST(LintWillNotRun, SlidingWindowUnused) {
  EXPECT_TRUE(fires("sliding-window-unused", qwen2({{"use_sliding_window", true}, {"max_window_layers", 2}})));
  EXPECT_FALSE(fires("sliding-window-unused", qwen2({{"use_sliding_window", true}, {"max_window_layers", 1}})));
  // Published Qwen2 configs carry a window with use_sliding_window false: nothing to say.
  EXPECT_FALSE(fires("sliding-window-unused", qwen2()));
  EXPECT_TRUE(fires("sliding-window-unused", llama({{"sliding_window", 64}})));
  EXPECT_FALSE(fires("sliding-window-unused", mistral()));
}

TEST(LintWillNotRun, RopeScalingUnread) {
  const json scaling = {{"rope_type", "linear"}, {"factor", 2.0}};
  auto found = of(lint(gpt2({{"rope_scaling", scaling}})), "rope-scaling-unread");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].node, "Position_Embedding");
  EXPECT_FALSE(fires("rope-scaling-unread", llama({{"rope_scaling", scaling}})));
  EXPECT_FALSE(fires("rope-scaling-unread", gpt2({{"rope_scaling", nullptr}})));
}

TEST(LintWillNotRun, RopeScalingMalformed) {
  EXPECT_TRUE(fires("rope-scaling-malformed", llama({{"rope_scaling", {{"rope_type", "llama3"}, {"factor", 8.0}}}})));
  EXPECT_TRUE(fires("rope-scaling-malformed", llama({{"rope_scaling", {{"rope_type", "yarn2"}, {"factor", 2.0}}}})));
  EXPECT_TRUE(fires("rope-scaling-malformed", llama({{"rope_scaling", {{"factor", 2.0}}}})));
  EXPECT_TRUE(fires("rope-scaling-malformed", llama({{"rope_scaling", 2.0}})));
  EXPECT_FALSE(fires("rope-scaling-malformed", llama({{"rope_scaling", {{"type", "linear"}, {"factor", 2.0}}}})));
  EXPECT_FALSE(fires("rope-scaling-malformed",
                     llama({{"rope_scaling",
                             {{"rope_type", "llama3"}, {"factor", 8.0}, {"low_freq_factor", 1.0},
                              {"high_freq_factor", 4.0}, {"original_max_position_embeddings", 64}}}})));
}

TEST(LintWillNotRun, PatchGridRequiredByPixelReconstruction) {
  auto mim = vit({{"architectures", {"ViTForMaskedImageModeling"}}, {"encoder_stride", 16}});
  EXPECT_TRUE(fires("patch-grid-required", with(mim, {{"image_size", 60}})));
  EXPECT_FALSE(fires("patch-grid-required", mim));
  // Classification only loses the edge pixels: a warning from the other rule, not this error.
  EXPECT_FALSE(fires("patch-grid-required", vit({{"image_size", 60}})));
}

TEST(LintWillNotRun, PatchGridDropsPixels) {
  auto found = of(lint(vit({{"image_size", 60}})), "patch-grid-drops-pixels");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].node, "Patch_Embed");
  EXPECT_NE(found[0].fix.find("48 or 64"), std::string::npos);
  EXPECT_FALSE(fires("patch-grid-drops-pixels", vit()));
  EXPECT_TRUE(fires("patch-grid-drops-pixels", dinov2({{"image_size", 60}})));
  EXPECT_FALSE(fires("patch-grid-drops-pixels", dinov2()));
}

TEST(LintWillNotRun, MimStrideMismatch) {
  auto mim = vit({{"architectures", {"ViTForMaskedImageModeling"}}});
  EXPECT_TRUE(fires("mim-stride-mismatch", with(mim, {{"encoder_stride", 32}})));
  EXPECT_FALSE(fires("mim-stride-mismatch", with(mim, {{"encoder_stride", 16}})));
  EXPECT_FALSE(fires("mim-stride-mismatch", vit({{"encoder_stride", 32}})));
}

TEST(LintWillNotRun, ActivationUnknown) {
  auto found = of(lint(gpt2({{"activation_function", "gelu_tanh"}})), "activation-unknown");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].fix.find("'gelu_pytorch_tanh'"), std::string::npos) << found[0].fix;
  EXPECT_TRUE(fires("activation-unknown", llama({{"hidden_act", "swiglu"}})));
  EXPECT_FALSE(fires("activation-unknown", llama({{"hidden_act", "silu"}})));
  EXPECT_FALSE(fires("activation-unknown", gpt2()));
}

TEST(LintWillNotRun, TorchDtypeUnknown) {
  auto found = of(lint(llama({{"torch_dtype", "bf16"}})), "torch-dtype-unknown");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].fix.find("\"bfloat16\""), std::string::npos);
  EXPECT_FALSE(fires("torch-dtype-unknown", llama({{"torch_dtype", "bfloat16"}})));
  EXPECT_FALSE(fires("torch-dtype-unknown", llama({{"torch_dtype", "float"}})));
}
