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

TEST(TvltFamily, OneSequenceOfClsVideoAndAudioPatches) {
  auto m = build({{"model_type", "tvlt"}});
  // 1 CLS + 8 frames x 196 patches + (2048 / 16) x (128 / 16) spectrogram patches.
  EXPECT_EQ(m.graph.nodes.back().out, (graph::Shape{1 + 1568 + 1024, 768}));
  EXPECT_EQ(m.graph.find_tensor("audio_embeddings.pos_embed_a")->shape, (graph::Shape{1, 128, 768}));
  EXPECT_EQ(m.graph.saved_scalars(), 86'107'392);
}

TEST(TvltFamily, PreTrainingRunsTheEncoderTwiceAndTheDecoderPerModality) {
  auto m = build({{"model_type", "tvlt"}, {"architectures", {"TvltForPreTraining"}}});
  // The matching pass sees every patch; the MAE pass int(1568 x 0.25) video and int(1024 x 0.85) audio patches.
  EXPECT_EQ(node(m.graph, "Matching_Concat_Tokens")->out, (graph::Shape{2593, 768}));
  EXPECT_EQ(node(m.graph, "MAE_Concat_Tokens")->out, (graph::Shape{1 + 392 + 870, 768}));
  EXPECT_EQ(node(m.graph, "Pixel_Decoder_MAE_Head")->out, (graph::Shape{1568, 768}));
  EXPECT_EQ(node(m.graph, "Audio_Decoder_MAE_Head")->out, (graph::Shape{1024, 256}));
  // Shared weights count once: transformers 4.47.1's total.
  EXPECT_EQ(m.graph.saved_scalars(), 113'014'017);
  EXPECT_TRUE(m.graph.forward.ok);
  EXPECT_THROW(build({{"model_type", "tvlt"},
                      {"architectures", {"TvltForPreTraining"}},
                      {"task_matching", false},
                      {"task_mae", false}}),
               Error);
}

}  // namespace
}  // namespace neurarch
