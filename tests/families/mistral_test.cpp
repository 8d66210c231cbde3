#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;

std::int64_t window_of_first_attention(const std::string& extra) {
  auto g = build_model(Config::parse(R"({"model_type": "mistral", "hidden_size": 64, "intermediate_size": 128,
                                          "num_hidden_layers": 1, "num_attention_heads": 8, "vocab_size": 100)" +
                                         extra + "}",
                                     "config.json"))
               .graph;
  for (const auto& n : g.nodes)
    if (n.attention) return n.attention->window;
  return -1;
}

}  // namespace

TEST(MistralGraph, SlidingWindowDefaultsTo4096AndNullMeansFull) {
  EXPECT_EQ(window_of_first_attention(""), 4096);
  EXPECT_EQ(window_of_first_attention(R"(, "sliding_window": 512)"), 512);
  EXPECT_EQ(window_of_first_attention(R"(, "sliding_window": null)"), 0);
}

TEST(MistralGraph, DefaultsToEightKvHeads) {
  auto g = build_model(Config::parse(R"({"model_type": "mistral", "hidden_size": 64, "intermediate_size": 128,
                                          "num_hidden_layers": 1, "num_attention_heads": 16, "vocab_size": 100})",
                                     "config.json"))
               .graph;
  EXPECT_EQ(g.find_tensor("layers.0.self_attn.k_proj.weight")->shape, (neurarch::graph::Shape{32, 64}));
}
