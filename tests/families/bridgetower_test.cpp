#include <cstddef>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;
using test_support::node;

TEST(BridgeTowerFamily, TopTowerLayersFeedTheCrossModalLayersThroughLinkTowers) {
  auto m = build({{"model_type", "bridgetower"}});
  // 6 cross-modal layers per modality; the top 5 layers of each tower are bridged by 5 link towers each.
  EXPECT_NE(m.graph.find_tensor("cross_modal_text_layers.5.crossattention.self.key.weight"), nullptr);
  EXPECT_EQ(m.graph.find_tensor("cross_modal_text_layers.6.attention.self.query.weight"), nullptr);
  EXPECT_NE(m.graph.find_tensor("cross_modal_image_link_tower.4.LayerNorm.weight"), nullptr);
  EXPECT_EQ(m.graph.find_tensor("cross_modal_image_link_tower.5.LayerNorm.weight"), nullptr);
  // The vision tower is OpenAI CLIP's layout: nn.MultiheadAttention with a fused in_proj, hidden / 64 heads.
  EXPECT_EQ(m.graph.find_tensor("vision_model.visual.transformer.resblocks.11.attn.in_proj_weight")->shape,
            (graph::Shape{2304, 768}));
  EXPECT_EQ(node(m.graph, "Vision_Attention_11")->attention->heads, 12);
  // The bridge into cross-modal layer 1 reads text layer 7 (split index 12 - 6 + 1 = 7).
  const auto* link = node(m.graph, "Link_text_Add_0");
  ASSERT_NE(link, nullptr);
  // Link tower <- token type <- text transform <- the text layer's output LayerNorm.
  const auto& typed = m.graph.nodes.at(static_cast<std::size_t>(link->inputs.at(0)));
  const auto& transformed = m.graph.nodes.at(static_cast<std::size_t>(typed.inputs.at(0)));
  const auto& layer = m.graph.nodes.at(static_cast<std::size_t>(transformed.inputs.at(0)));
  EXPECT_EQ(layer.path, "text_model.encoder.layer.7.output.LayerNorm");
  // The fixture's total (transformers 4.47.1).
  EXPECT_EQ(m.graph.saved_scalars(), 326'347'008);
  EXPECT_TRUE(m.graph.forward.ok);
  // pooler_output: both poolers' first tokens, concatenated.
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{1536}));
}

TEST(BridgeTowerFamily, SharedLinkTowersAndPerLayerTransforms) {
  auto m = build({{"model_type", "bridgetower"},
                  {"share_link_tower_layers", true},
                  {"link_tower_type", "scaled_add"},
                  {"share_cross_modal_transformer_layers", false}});
  EXPECT_EQ(m.graph.find_tensor("cross_modal_text_link_tower.scaled_factor")->shape, (graph::Shape{}));
  EXPECT_NE(m.graph.find_tensor("cross_modal_image_transform.5.weight"), nullptr);
  // transformers 5.24's count for this config.
  EXPECT_EQ(m.graph.saved_scalars(), 332'240'642);
}

TEST(BridgeTowerFamily, HeadsAndRefusals) {
  auto itm = build({{"model_type", "bridgetower"}, {"architectures", {"BridgeTowerForImageAndTextRetrieval"}}});
  EXPECT_EQ(itm.graph.find_tensor("itm_score.fc.weight")->shape, (graph::Shape{2, 1536}));
  EXPECT_NE(itm.graph.find_tensor("bridgetower.text_model.pooler.dense.weight"), nullptr);
  // ForContrastiveLearning reads contrastive_hidden_size, which BridgeTowerConfig does not define.
  EXPECT_THROW(build({{"model_type", "bridgetower"}, {"architectures", {"BridgeTowerForContrastiveLearning"}}}), Error);
  auto itc = build({{"model_type", "bridgetower"},
                    {"architectures", {"BridgeTowerForContrastiveLearning"}},
                    {"contrastive_hidden_size", 512}});
  EXPECT_EQ(itc.graph.find_tensor("itc_cross_modal_head.fc.weight")->shape, (graph::Shape{512, 1536}));
  EXPECT_THROW(build({{"model_type", "bridgetower"}, {"link_tower_type", "concat"}}), Error);
}

}  // namespace
}  // namespace neurarch
