// MPT: every ground-truth class, mpt-7b's published size, ALiBi (no RoPE), the eager-only attention and
// the attn_config dropouts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

namespace {

graph::Graph build(const char* json) { return model::build_model(Config::parse(json, "config.json")).graph; }

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST(MptGraph, Mpt7BSizeAlibiAndEagerAttention) {
  // mosaicml/mpt-7b's config.json (architecture keys): 6.7B parameters, embeddings tied.
  auto g = build(R"({"architectures": ["MPTForCausalLM"], "model_type": "mpt", "d_model": 4096, "n_heads": 32,
      "n_layers": 32, "expansion_ratio": 4, "max_seq_len": 2048, "vocab_size": 50432, "no_bias": true,
      "attn_config": {"alibi": true, "attn_impl": "torch", "attn_pdrop": 0, "clip_qkv": null, "qk_ln": false}})");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.saved_scalars(), 6'649'286'656);
  const auto* a = node(g, "Attention_0");
  ASSERT_TRUE(a && a->attention);
  EXPECT_FALSE(a->attention->rotary);  // ALiBi: an additive bias, no rotated copies of q and k
  EXPECT_FALSE(a->attention->sdpa);    // the reference's own matmul + fp32 softmax
  EXPECT_EQ(g.find_tensor("transformer.blocks.0.attn.Wqkv.weight")->shape, (graph::Shape{3 * 4096, 4096}));
  EXPECT_EQ(g.find_tensor("transformer.blocks.0.norm_1.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("lm_head.weight")->tied_to, "transformer.wte.weight");
}

TEST(MptGraph, AttnPdropDropsProbabilitiesAndBothResidualBranches) {
  auto g = build(R"({"model_type": "mpt", "d_model": 64, "n_heads": 4, "n_layers": 1, "vocab_size": 100,
      "max_seq_len": 16, "attn_config": {"attn_pdrop": 0.1}})");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto* a = node(g, "Attention_0");
  const auto* f = node(g, "FFN_0");
  ASSERT_TRUE(a && f);
  EXPECT_DOUBLE_EQ(a->attention->dropout, 0.1);
  EXPECT_DOUBLE_EQ(a->dropout, 0.1);
  EXPECT_DOUBLE_EQ(f->dropout, 0.1);
  // Without attn_config the class defaults apply: no dropout.
  auto plain = build(R"({"model_type": "mpt", "d_model": 64, "n_heads": 4, "n_layers": 1, "vocab_size": 100})");
  EXPECT_DOUBLE_EQ(node(plain, "Attention_0")->attention->dropout, 0.0);
}
