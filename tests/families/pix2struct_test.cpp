#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, std::optional<std::int64_t> seq = {},
                        std::optional<std::int64_t> target = {}) {
  model::BuildOptions options;
  options.seq = seq;
  options.target_seq = target;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node& node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n;
  throw std::runtime_error("no node " + name);
}

TEST(Pix2StructFamily, FlattenedPatchesFeedATextDecoder) {
  auto m = build({{"model_type", "pix2struct"}}, 1024, 64);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "flattened_patches");
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{1024, 770}));  // row id, column id, 16 x 16 x 3 pixels
  EXPECT_EQ(g.inputs[1].name, "decoder_input_ids");
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{64}));
  const auto& cross = node(g, "Decoder_Cross_Attention_11");
  EXPECT_EQ(cross.attention->query_len, 64);
  EXPECT_EQ(cross.attention->kv_len, 1024);
  EXPECT_FALSE(cross.attention->sdpa);
  // Only the decoder's first layer owns the position bias.
  EXPECT_EQ(g.find_tensor("decoder.layer.1.self_attention.attention.relative_attention_bias.weight"), nullptr);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{64, 50244}));
}

TEST(Pix2StructFamily, TiedHeadAliasesTheDecoderEmbedding) {
  auto m = build({{"model_type", "pix2struct"}, {"tie_word_embeddings", true}}, 256, 16);
  EXPECT_EQ(m.graph.find_tensor("decoder.lm_head.weight")->tied_to, "decoder.embed_tokens.weight");
}

}  // namespace
}  // namespace neurarch
