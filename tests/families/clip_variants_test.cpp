#include <optional>
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(nlohmann::json config, const std::string& cls = "",
                        std::optional<std::int64_t> size = {}) {
  model::BuildOptions options;
  options.class_name = cls;
  options.image_size = size;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(ClipVariantsFamily, ChineseClipProjectsTheBertClsToken) {
  auto m = build({{"model_type", "chinese_clip"},
                  {"projection_dim", 256},
                  {"text_config", {{"hidden_size", 1024}, {"num_attention_heads", 16}, {"num_hidden_layers", 2}}}});
  const auto& g = m.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{512}));
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{3, 224, 224}));
  EXPECT_EQ(g.find_tensor("text_projection.weight")->shape, (graph::Shape{256, 1024}));
  EXPECT_EQ(g.find_tensor("text_model.pooler.dense.weight"), nullptr);
  EXPECT_FALSE(node(g, "Text_Attention_0")->attention->causal);
  EXPECT_EQ(node(g, "Text_Projection")->out, (graph::Shape{256}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(ClipVariantsFamily, AltClipTextTowerNumbersPositionsAfterPadding) {
  auto m = build({{"model_type", "altclip"},
                  {"text_config", {{"num_hidden_layers", 2}, {"project_dim", 512}}},
                  {"projection_dim", 640}});
  const auto& g = m.graph;
  // 514 rows, the first pad_token_id + 1 = 2 never hold a token.
  EXPECT_EQ(g.inputs[0].shape, (graph::Shape{512}));
  EXPECT_EQ(g.find_tensor("text_model.transformation.weight")->shape, (graph::Shape{512, 1024}));
  EXPECT_EQ(g.find_tensor("text_projection.weight")->shape, (graph::Shape{640, 512}));
  EXPECT_EQ(g.find_tensor("visual_projection.weight")->shape, (graph::Shape{640, 768}));
  EXPECT_EQ(node(g, "Text_Transformation")->out, (graph::Shape{512, 512}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(ClipVariantsFamily, MetaClip2ClassifierReadsTheVisionTowerOnly) {
  auto m = build({{"model_type", "metaclip_2"}, {"num_labels", 5}}, "MetaClip2ForImageClassification");
  ASSERT_EQ(m.graph.inputs.size(), 1u);
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{5}));
  EXPECT_EQ(m.graph.find_tensor("logit_scale"), nullptr);
}

TEST(ClipVariantsFamily, Aimv2NativeComputesPositionsForAnyImage) {
  auto fixed = build({{"model_type", "aimv2_vision_model"}}, "", 448);
  EXPECT_FALSE(fixed.graph.forward.ok);
  EXPECT_NE(fixed.graph.forward.reason.find("is_native"), std::string::npos) << fixed.graph.forward.reason;
  auto native = build({{"model_type", "aimv2_vision_model"}, {"is_native", true}}, "", 448);
  EXPECT_TRUE(native.graph.forward.ok) << native.graph.forward.reason;
  EXPECT_EQ(native.graph.find_tensor("embeddings.position_embedding.weight"), nullptr);
  EXPECT_EQ(node(native.graph, "Attention_0")->out, (graph::Shape{1024, 1024}));
}

TEST(ClipVariantsFamily, Aimv2BiasFlagsAndHead) {
  auto m = build({{"model_type", "aimv2_vision_model"}, {"qkv_bias", true}, {"mlp_bias", true}, {"use_head", false},
                  {"num_hidden_layers", 1}});
  const auto& g = m.graph;
  EXPECT_NE(g.find_tensor("encoder.layers.0.attention.out_proj.bias"), nullptr);
  EXPECT_NE(g.find_tensor("encoder.layers.0.ffn.gate_proj.bias"), nullptr);
  EXPECT_NE(g.find_tensor("encoder.layers.0.ffn.down_proj.bias"), nullptr);
  EXPECT_EQ(g.find_tensor("head.cls_token"), nullptr);
  EXPECT_EQ(g.nodes.back().out, (graph::Shape{256, 1024}));
  auto two = build({{"model_type", "aimv2"}});
  EXPECT_TRUE(node(two.graph, "Text_Attention_0")->attention->causal);
  EXPECT_FALSE(node(two.graph, "Vision_Attention_0")->attention->causal);
  EXPECT_EQ(node(two.graph, "Vision_Head_Attention")->attention->kv_len, 256);
  EXPECT_TRUE(two.graph.forward.ok) << two.graph.forward.reason;
}

TEST(ClipVariantsFamily, AlignComparesProjectedTextWithPooledImage) {
  auto m = build({{"model_type", "align"}});
  const auto& g = m.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[1].shape, (graph::Shape{3, 600, 600}));
  EXPECT_EQ(g.find_tensor("temperature")->shape, graph::Shape{});
  EXPECT_EQ(g.find_tensor("logit_scale"), nullptr);
  EXPECT_EQ(g.find_tensor("vision_model.encoder.top_conv.weight"), nullptr);
  EXPECT_EQ(node(g, "Vision_Pooler")->out.front(), 640);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  // The image embedding is the last block's width; a projection of another width cannot be compared with it.
  auto bad = build({{"model_type", "align"}, {"projection_dim", 512}});
  EXPECT_FALSE(bad.graph.forward.ok);
}

TEST(ClipVariantsFamily, OwlDetectorsScoreEveryPatchAgainstTheQuery) {
  auto v1 = build({{"model_type", "owlvit"}}, "OwlViTForObjectDetection");
  const auto& g = v1.graph;
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.find_tensor("owlvit.text_projection.weight")->shape, (graph::Shape{512, 512}));
  EXPECT_EQ(g.find_tensor("owlvit.logit_scale")->shape, graph::Shape{});
  EXPECT_EQ(g.find_tensor("class_head.dense0.weight")->shape, (graph::Shape{512, 768}));
  EXPECT_EQ(g.find_tensor("class_head.logit_scale.weight")->shape, (graph::Shape{1, 768}));
  EXPECT_EQ(g.find_tensor("box_head.dense2.weight")->shape, (graph::Shape{4, 768}));
  EXPECT_EQ(g.find_tensor("layer_norm.weight")->shape, (graph::Shape{768}));
  EXPECT_EQ(g.find_tensor("objectness_head.dense2.weight"), nullptr);
  // 768 / 32 = 24 patches a side; one logit per patch and query.
  EXPECT_EQ(node(g, "Class_Logits")->out, (graph::Shape{576, 1}));
  EXPECT_EQ(node(g, "Box_Head_Dense2")->out, (graph::Shape{576, 4}));
  // post_layernorm runs twice but is stored once.
  std::size_t post = 0;
  for (const auto& t : g.tensors) post += t.name == "owlvit.vision_model.post_layernorm.weight";
  EXPECT_EQ(post, 1u);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;

  auto v2 = build({{"model_type", "owlv2"}}, "Owlv2ForObjectDetection");
  EXPECT_EQ(v2.graph.find_tensor("objectness_head.dense2.weight")->shape, (graph::Shape{1, 768}));
  EXPECT_EQ(node(v2.graph, "Box_Head_Dense2")->out, (graph::Shape{2304, 4}));

  // class_head's dense0 maps to the text width, which the projected queries must share.
  auto bad = build({{"model_type", "owlvit"}, {"projection_dim", 256}}, "OwlViTForObjectDetection");
  EXPECT_FALSE(bad.graph.forward.ok);
}

}  // namespace
}  // namespace neurarch
