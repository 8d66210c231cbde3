// Config switches of the decoders II / encoders II families that the ground-truth fixtures leave at
// their defaults, checked on the built graph: each optional tensor appears exactly when its flag says.
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(const std::string& json, const std::string& class_name = "",
                        std::optional<std::int64_t> seq = std::nullopt) {
  model::BuildOptions o;
  o.class_name = class_name;
  o.seq = seq;
  o.param_dtype = DType::F32;
  return model::build_model(Config::parse(json, "c.json"), o);
}

graph::Shape shape_of(const graph::Graph& g, const std::string& name) {
  const auto* t = g.find_tensor(name);
  return t ? t->shape : graph::Shape{};
}

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

}  // namespace

TEST(Gemma3TextGraph, PatternWindowsAndBidirectionalAttention) {
  const std::string base = R"("model_type": "gemma3_text", "num_hidden_layers": 7, "hidden_size": 64,
      "intermediate_size": 128, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
      "vocab_size": 100, "sliding_window": 512)";
  auto causal = build("{" + base + R"(, "sliding_window_pattern": 3})");
  for (int i = 0; i < 7; ++i) {
    const auto& a = *node(causal.graph, "Attention_" + std::to_string(i))->attention;
    EXPECT_EQ(a.window, (i + 1) % 3 == 0 ? 0 : 512) << i;
    EXPECT_TRUE(a.causal);
    EXPECT_TRUE(a.rotary);
  }
  EXPECT_EQ(shape_of(causal.graph, "layers.0.self_attn.q_norm.weight"), (graph::Shape{16}));
  auto embedding = build("{" + base + R"(, "use_bidirectional_attention": true})");
  const auto& a = *node(embedding.graph, "Attention_0")->attention;
  EXPECT_FALSE(a.causal);
  EXPECT_EQ(a.window, 257);  // the reference keeps sliding_window // 2 + 1
  EXPECT_EQ(node(embedding.graph, "Attention_5")->attention->window, 0);
}

TEST(FalconGraph, NewDecoderArchitectureGroupsKvHeadsAndKeepsTwoNorms) {
  auto m = build(R"({"model_type": "falcon", "hidden_size": 256, "num_attention_heads": 8, "num_kv_heads": 2,
                     "num_hidden_layers": 2, "vocab_size": 100, "new_decoder_architecture": true, "bias": true})",
                 "FalconForCausalLM");
  const auto& g = m.graph;
  EXPECT_EQ(shape_of(g, "transformer.h.0.self_attention.query_key_value.weight"), (graph::Shape{(8 + 2 * 2) * 32, 256}));
  EXPECT_EQ(shape_of(g, "transformer.h.0.self_attention.query_key_value.bias"), (graph::Shape{(8 + 2 * 2) * 32}));
  EXPECT_EQ(shape_of(g, "transformer.h.1.mlp.dense_h_to_4h.weight"), (graph::Shape{1024, 256}));
  EXPECT_NE(g.find_tensor("transformer.h.0.ln_attn.weight"), nullptr);
  EXPECT_NE(g.find_tensor("transformer.h.0.ln_mlp.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("transformer.h.0.input_layernorm.weight"), nullptr);
  EXPECT_EQ(node(g, "Attention_0")->type, graph::NodeType::GroupedQueryAttention);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;

  auto sequential = build(R"({"model_type": "falcon", "hidden_size": 128, "num_attention_heads": 4,
      "num_hidden_layers": 1, "vocab_size": 100, "parallel_attn": false, "multi_query": false, "alibi": true})");
  EXPECT_NE(sequential.graph.find_tensor("h.0.post_attention_layernorm.weight"), nullptr);
  EXPECT_EQ(shape_of(sequential.graph, "h.0.self_attention.query_key_value.weight"), (graph::Shape{3 * 128, 128}));
  EXPECT_FALSE(node(sequential.graph, "Attention_0")->attention->rotary);

  auto broken = build(R"({"model_type": "falcon", "hidden_size": 128, "num_attention_heads": 4,
      "num_hidden_layers": 1, "vocab_size": 100, "parallel_attn": false, "new_decoder_architecture": true})");
  EXPECT_FALSE(broken.graph.forward.ok);
}

TEST(OptGraph, ProjectionsAndPostNormLikeOpt350m) {
  auto m = build(R"({"model_type": "opt", "hidden_size": 1024, "word_embed_proj_dim": 512, "ffn_dim": 4096,
                     "num_attention_heads": 16, "num_hidden_layers": 2, "vocab_size": 50272,
                     "max_position_embeddings": 2048, "do_layer_norm_before": false})",
                 "OPTForCausalLM");
  const auto& g = m.graph;
  EXPECT_EQ(shape_of(g, "model.decoder.project_in.weight"), (graph::Shape{1024, 512}));
  EXPECT_EQ(shape_of(g, "model.decoder.project_out.weight"), (graph::Shape{512, 1024}));
  EXPECT_EQ(g.find_tensor("model.decoder.project_in.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("model.decoder.final_layer_norm.weight"), nullptr);
  EXPECT_EQ(shape_of(g, "model.decoder.embed_positions.weight"), (graph::Shape{2050, 1024}));
  EXPECT_EQ(shape_of(g, "model.decoder.embed_tokens.weight"), (graph::Shape{50272, 512}));
  const auto* head = g.find_tensor("lm_head.weight");
  ASSERT_NE(head, nullptr);
  EXPECT_EQ(head->shape, (graph::Shape{50272, 512}));
  EXPECT_FALSE(head->saved());
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_FALSE(build(R"({"model_type": "opt", "num_hidden_layers": 1})", "", 2049).graph.forward.ok);
  EXPECT_TRUE(build(R"({"model_type": "opt", "num_hidden_layers": 1})", "", 2048).graph.forward.ok);
}

TEST(AlbertGraph, SharedLayersAreNodesButCountedOnce) {
  const std::string config = R"({"model_type": "albert", "hidden_size": 64, "embedding_size": 16,
      "num_attention_heads": 4, "intermediate_size": 128, "num_hidden_layers": 6, "num_hidden_groups": 2,
      "inner_group_num": 2, "vocab_size": 100})";
  auto m = build(config);
  const auto& g = m.graph;
  int attentions = 0;
  for (const auto& n : g.nodes)
    if (n.type == graph::NodeType::MultiHeadAttention) ++attentions;
  EXPECT_EQ(attentions, 6 * 2);
  // Layers 0-2 run group 0, layers 3-5 group 1; each group has two layers of its own.
  const std::int64_t layer = 4 * (64 * 64 + 64) + 2 * 2 * 64 + (128 * 64 + 128) + (64 * 128 + 64);
  const std::int64_t embeddings = 100 * 16 + 2 * 16 + 512 * 16 + 2 * 16 + (64 * 16 + 64);
  EXPECT_EQ(g.saved_scalars(), embeddings + 2 * 2 * layer + (64 * 64 + 64));
  const auto* later = node(g, "Attention_2_1");
  ASSERT_NE(later, nullptr);
  for (int t : later->tensors) {
    const auto& spec = g.tensors[static_cast<std::size_t>(t)];
    EXPECT_FALSE(spec.saved()) << spec.name;
    EXPECT_EQ(spec.name.rfind("encoder.albert_layer_groups.0.albert_layers.1.", 0), 0u) << spec.name;
  }
  for (int t : node(g, "Attention_3")->tensors) EXPECT_TRUE(g.tensors[static_cast<std::size_t>(t)].saved());
}

TEST(DebertaGraph, V1RelativeProjectionsAndTalkingHeads) {
  auto m = build(R"({"model_type": "deberta", "hidden_size": 64, "num_attention_heads": 4, "intermediate_size": 128,
      "num_hidden_layers": 2, "vocab_size": 100, "relative_attention": true, "pos_att_type": "c2p|p2c",
      "max_relative_positions": -1, "max_position_embeddings": 128, "position_biased_input": false,
      "talking_head": true, "type_vocab_size": 2})");
  const auto& g = m.graph;
  EXPECT_EQ(shape_of(g, "encoder.rel_embeddings.weight"), (graph::Shape{256, 64}));
  EXPECT_EQ(shape_of(g, "encoder.layer.1.attention.self.pos_proj.weight"), (graph::Shape{64, 64}));
  EXPECT_EQ(g.find_tensor("encoder.layer.1.attention.self.pos_proj.bias"), nullptr);
  EXPECT_EQ(shape_of(g, "encoder.layer.1.attention.self.pos_q_proj.bias"), (graph::Shape{64}));
  EXPECT_EQ(shape_of(g, "encoder.layer.0.attention.self.head_logits_proj.weight"), (graph::Shape{4, 4}));
  EXPECT_EQ(shape_of(g, "embeddings.token_type_embeddings.weight"), (graph::Shape{2, 64}));
  EXPECT_EQ(g.find_tensor("embeddings.position_embeddings.weight"), nullptr);
  EXPECT_TRUE(build(R"({"model_type": "deberta", "relative_attention": true, "position_biased_input": false,
      "num_hidden_layers": 1})", "", 4096).graph.forward.ok);
}

TEST(DebertaGraph, V2ConvolutionSeparateKeysAndTheNewMaskedLmHead) {
  auto m = build(R"({"model_type": "deberta-v2", "hidden_size": 64, "num_attention_heads": 4,
      "intermediate_size": 128, "num_hidden_layers": 2, "vocab_size": 100, "relative_attention": true,
      "pos_att_type": ["p2c", "c2p"], "position_buckets": 32, "norm_rel_ebd": "layer_norm", "conv_kernel_size": 3,
      "conv_groups": 2, "legacy": false})",
                 "DebertaV2ForMaskedLM");
  const auto& g = m.graph;
  EXPECT_EQ(shape_of(g, "deberta.encoder.conv.conv.weight"), (graph::Shape{64, 32, 3}));
  EXPECT_EQ(shape_of(g, "deberta.encoder.rel_embeddings.weight"), (graph::Shape{64, 64}));
  EXPECT_NE(g.find_tensor("deberta.encoder.LayerNorm.bias"), nullptr);
  EXPECT_NE(g.find_tensor("deberta.encoder.layer.0.attention.self.pos_key_proj.bias"), nullptr);
  EXPECT_NE(g.find_tensor("deberta.encoder.layer.0.attention.self.pos_query_proj.weight"), nullptr);
  EXPECT_EQ(shape_of(g, "lm_predictions.lm_head.bias"), (graph::Shape{100}));
  EXPECT_EQ(shape_of(g, "lm_predictions.lm_head.dense.weight"), (graph::Shape{64, 64}));
  EXPECT_EQ(g.find_tensor("cls.predictions.bias"), nullptr);
  ASSERT_NE(node(g, "Conv_LayerNorm"), nullptr);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(MpnetGraph, RelativeBiasFeedsEveryLayerAndPositionsStartAtTwo) {
  auto m = build(R"({"model_type": "mpnet", "num_hidden_layers": 3})", "", 510);
  const auto& g = m.graph;
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  const auto* bias = node(g, "Relative_Position_Bias");
  ASSERT_NE(bias, nullptr);
  for (int i = 0; i < 3; ++i) {
    const auto& in = node(g, "Attention_" + std::to_string(i))->inputs;
    EXPECT_NE(std::find(in.begin(), in.end(), bias->index), in.end()) << i;
  }
  EXPECT_FALSE(build(R"({"model_type": "mpnet", "num_hidden_layers": 1})", "", 511).graph.forward.ok);
}

TEST(MobileBertGraph, LayerNormAndNoBottleneck) {
  auto m = build(R"({"model_type": "mobilebert", "num_hidden_layers": 1, "hidden_size": 128, "embedding_size": 128,
      "use_bottleneck": false, "trigram_input": false, "normalization_type": "layer_norm",
      "num_feedforward_networks": 1, "intermediate_size": 256})");
  const auto& g = m.graph;
  EXPECT_EQ(g.find_tensor("encoder.layer.0.bottleneck.input.dense.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("encoder.layer.0.ffn.0.intermediate.dense.weight"), nullptr);
  EXPECT_EQ(shape_of(g, "encoder.layer.0.attention.self.value.weight"), (graph::Shape{128, 128}));
  EXPECT_EQ(shape_of(g, "embeddings.embedding_transformation.weight"), (graph::Shape{128, 128}));
  EXPECT_EQ(node(g, "Embedding_Norm")->type, graph::NodeType::LayerNorm);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(MobileBertGraph, MaskedLmHeadReadsTheFullHiddenWidth) {
  auto m = build(R"({"model_type": "mobilebert", "num_hidden_layers": 1})", "MobileBertForMaskedLM");
  EXPECT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  EXPECT_EQ(node(m.graph, "LM_Head")->out, (graph::Shape{512, 30522}));
}

TEST(ModernBertGraph, AlternatingWindowsAndBiases) {
  auto m = build(R"({"model_type": "modernbert", "num_hidden_layers": 4, "global_attn_every_n_layers": 2,
      "local_attention": 64, "attention_bias": true, "mlp_bias": true, "norm_bias": true})");
  const auto& g = m.graph;
  EXPECT_EQ(node(g, "Attention_0")->attention->window, 0);
  EXPECT_EQ(node(g, "Attention_1")->attention->window, 64);
  EXPECT_FALSE(node(g, "Attention_1")->attention->causal);
  EXPECT_EQ(g.find_tensor("layers.0.attn_norm.weight"), nullptr);
  EXPECT_NE(g.find_tensor("layers.1.attn_norm.bias"), nullptr);
  EXPECT_NE(g.find_tensor("layers.1.attn.Wqkv.bias"), nullptr);
  EXPECT_EQ(shape_of(g, "layers.1.mlp.Wi.bias"), (graph::Shape{2 * 1152}));
  EXPECT_EQ(m.graph.input_shape, (graph::Shape{2048}));
}

}  // namespace neurarch
