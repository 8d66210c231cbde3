// Graph facts of the Audio Spectrogram Transformer that its tensor list does not show: the overlapping patch
// count, and the stored positions refusing another spectrogram length. Tensors: tests/groundtruth_test.cpp.
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

model::BuiltModel build(std::optional<std::int64_t> frames) {
  nlohmann::json config = {{"model_type", "audio-spectrogram-transformer"}, {"hidden_size", 64},
                           {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"intermediate_size", 128},
                           {"max_length", 100}, {"num_mel_bins", 32}};
  model::BuildOptions options;
  options.seq = frames;
  return model::build_model(Config(std::move(config), "config.json"), options);
}

TEST(AudioSpectrogramTransformerFamily, StridedPatchesAndTwoExtraTokens) {
  auto m = build(std::nullopt);
  ASSERT_TRUE(m.graph.forward.ok) << m.graph.forward.reason;
  // ((32 - 16) / 10 + 1) * ((100 - 16) / 10 + 1) = 2 * 9 patches, plus CLS and distillation tokens.
  EXPECT_EQ(m.graph.find_tensor("embeddings.position_embeddings")->shape, (graph::Shape{1, 20, 64}));
  EXPECT_EQ(m.graph.find_tensor("embeddings.patch_embeddings.projection.weight")->shape,
            (graph::Shape{64, 1, 16, 16}));
}

TEST(AudioSpectrogramTransformerFamily, AnotherLengthIsRefused) {
  auto m = build(60);
  EXPECT_FALSE(m.graph.forward.ok);
  EXPECT_NE(m.graph.forward.reason.find("--seq 100"), std::string::npos) << m.graph.forward.reason;
}

}  // namespace
}  // namespace neurarch
