#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "support/image_model.hpp"

namespace neurarch {
namespace {

using test_support::build;

TEST(VitMaeFamily, EncoderSeesOnlyTheKeptPatches) {
  auto m = build({{"model_type", "vit_mae"}});
  // int(196 * (1 - 0.75)) = 49 patches plus CLS.
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{50, 768}));
  EXPECT_EQ(m.graph.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 197, 768}));
  auto half = build({{"model_type", "vit_mae"}, {"mask_ratio", 0.5}});
  EXPECT_EQ(half.graph.nodes.back().out, (graph::Shape{99, 768}));
}

TEST(VitMaeFamily, PreTrainingDecoderPredictsEveryPatch) {
  auto m = build({{"model_type", "vit_mae"}, {"architectures", {"ViTMAEForPreTraining"}}});
  EXPECT_EQ(m.class_name, "ViTMAEForPreTraining");
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{196, 768}));
  EXPECT_EQ(m.graph.find_tensor("decoder.decoder_pos_embed")->shape, (graph::Shape{1, 197, 512}));
  EXPECT_EQ(m.graph.find_tensor("decoder.decoder_layers.7.output.dense.weight")->shape, (graph::Shape{512, 2048}));
  EXPECT_EQ(m.graph.find_tensor("decoder.decoder_pred.weight")->shape, (graph::Shape{768, 512}));
  // The encoder's 85,798,656 plus the decoder's 26,109,184.
  EXPECT_EQ(m.graph.saved_scalars(), 111'907'840);
  EXPECT_TRUE(m.graph.forward.ok);
}

TEST(VitMaeFamily, RefusesAnotherImageSize) {
  auto m = build({{"model_type", "vit_mae"}}, "", 512);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_THAT(m.graph.forward.reason, ::testing::HasSubstr("interpolate_pos_encoding"));
}

}  // namespace
}  // namespace neurarch
