#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

const graph::Node* node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return &n;
  return nullptr;
}

TEST(Qwen2AudioFamily, SeqSetsThePromptAndThirtySecondsPoolToHalfTheFrames) {
  nlohmann::json config{
      {"model_type", "qwen2_audio"},
      {"audio_config", {{"d_model", 64}, {"encoder_layers", 2}, {"encoder_attention_heads", 4},
                        {"encoder_ffn_dim", 128}, {"num_mel_bins", 16}, {"max_source_positions", 100}}},
      {"text_config", {{"model_type", "qwen2"}, {"hidden_size", 128}, {"intermediate_size", 256},
                       {"num_hidden_layers", 2}, {"num_attention_heads", 4}, {"num_key_value_heads", 4},
                       {"vocab_size", 1000}}}};
  model::BuildOptions options;
  options.seq = 300;
  const auto m = model::build_model(Config(config, "config.json"), options);
  const auto& g = m.graph;
  // 200 mel frames (2 x max_source_positions, whatever --seq says) -> 100 after conv2 -> 50 pooled.
  EXPECT_EQ(node(g, "Audio_Conv2")->out, (graph::Shape{100, 64}));
  EXPECT_EQ(node(g, "Projector_Linear")->out, (graph::Shape{50, 128}));
  EXPECT_EQ(g.input_shape, (graph::Shape{300}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
