// numerics rules, each both ways.
#include <gtest/gtest.h>

#include "lint_test_support.hpp"

using namespace lint_test;

TEST(LintNumerics, Fp16OnBf16Model) {
  auto found = of(lint(llama({{"torch_dtype", "float16"}})), "fp16-on-bf16-model");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, "warn");
  EXPECT_FALSE(fires("fp16-on-bf16-model", llama({{"torch_dtype", "bfloat16"}})));
  // Mistral is not in the table of families documented as bfloat16-trained.
  EXPECT_FALSE(fires("fp16-on-bf16-model", mistral({{"torch_dtype", "float16"}})));
}

TEST(LintNumerics, NormEpsInvalid) {
  EXPECT_TRUE(fires("norm-eps-invalid", llama({{"rms_norm_eps", 0}})));
  EXPECT_TRUE(fires("norm-eps-invalid", bert({{"layer_norm_eps", 0.5}})));
  EXPECT_FALSE(fires("norm-eps-invalid", llama({{"rms_norm_eps", 1e-6}})));
  EXPECT_FALSE(fires("norm-eps-invalid", bert()));
}

TEST(LintNumerics, NormEpsUnderflowsFp16) {
  auto found = of(lint(bert({{"torch_dtype", "float16"}})), "norm-eps-underflows-fp16");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].severity, "info");
  EXPECT_FALSE(fires("norm-eps-underflows-fp16", bert({{"torch_dtype", "bfloat16"}})));
  EXPECT_FALSE(fires("norm-eps-underflows-fp16", bert({{"torch_dtype", "float16"}, {"layer_norm_eps", 1e-5}})));
}

TEST(LintNumerics, RopeThetaInvalid) {
  EXPECT_TRUE(fires("rope-theta-invalid", llama({{"rope_theta", 0}})));
  EXPECT_TRUE(fires("rope-theta-invalid", llama({{"rope_theta", -10000.0}})));
  EXPECT_FALSE(fires("rope-theta-invalid", llama()));
  // Learned positions never read the key.
  EXPECT_FALSE(fires("rope-theta-invalid", gpt2({{"rope_theta", 0}})));
}

TEST(LintNumerics, RopeThetaShortForContext) {
  // head_dim 32: the slowest pair's wavelength at theta 1e4 is 2*pi*1e4^(30/32) = 35,333 positions.
  auto found = of(lint(llama({{"max_position_embeddings", 131072}})), "rope-theta-short-for-context");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_NE(found[0].message.find("35333"), std::string::npos) << found[0].message;
  EXPECT_FALSE(fires("rope-theta-short-for-context", llama({{"max_position_embeddings", 32768}})));
  EXPECT_FALSE(
      fires("rope-theta-short-for-context", llama({{"max_position_embeddings", 131072}, {"rope_theta", 1e6}})));
  // A linear 4x scaling stretches the wavelengths: 131072 / 4 is within reach.
  EXPECT_FALSE(fires("rope-theta-short-for-context",
                     llama({{"max_position_embeddings", 131072},
                            {"rope_scaling", {{"rope_type", "linear"}, {"factor", 4.0}}}})));
}

TEST(LintNumerics, RopeScalingFactorBelowOne) {
  auto scaled = [](double factor) { return llama({{"rope_scaling", {{"rope_type", "linear"}, {"factor", factor}}}}); };
  EXPECT_TRUE(fires("rope-scaling-factor-below-one", scaled(0.5)));
  EXPECT_FALSE(fires("rope-scaling-factor-below-one", scaled(2.0)));
}

TEST(LintNumerics, SoftcappingIgnored) {
  EXPECT_TRUE(fires("softcapping-ignored", llama({{"final_logit_softcapping", 30.0}})));
  EXPECT_FALSE(fires("softcapping-ignored", llama({{"final_logit_softcapping", nullptr}})));
  EXPECT_FALSE(fires("softcapping-ignored", llama()));
}

TEST(LintNumerics, SoftcappingMissing) {
  auto as_gemma2 = [](json config) {
    auto r = trace(config);
    r.model.model_type = "gemma2";  // no Gemma 2 family is registered; the rule reads only the report
    return of(neurarch::lint::run(r), "softcapping-missing");
  };
  EXPECT_EQ(as_gemma2(llama({{"attn_logit_softcapping", nullptr}, {"final_logit_softcapping", nullptr}})).size(), 2u);
  EXPECT_TRUE(as_gemma2(llama({{"attn_logit_softcapping", 50.0}, {"final_logit_softcapping", 30.0}})).empty());
  EXPECT_TRUE(as_gemma2(llama()).empty());  // absent keys take the trained defaults
  EXPECT_FALSE(fires("softcapping-missing", llama({{"final_logit_softcapping", nullptr}})));
}
