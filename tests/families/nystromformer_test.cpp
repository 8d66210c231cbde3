#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

TEST(NystromformerForward, PositionsStartAtTwo) {
  auto g = build_model(Config::parse(R"({"model_type": "nystromformer", "num_hidden_layers": 1})", "c.json")).graph;
  EXPECT_EQ(g.find_tensor("embeddings.position_embeddings.weight")->shape, (Shape{512, 768}));
  EXPECT_EQ(g.input_shape, Shape{510});
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(NystromformerForward, LandmarkSegmentsMustTileTheSequence) {
  Config c = Config::parse(R"({"model_type": "nystromformer", "num_hidden_layers": 1, "max_position_embeddings": 4096,
                               "segment_means_seq_len": 512, "num_landmarks": 64})",
                           "c.json");
  BuildOptions tiled;
  tiled.seq = 512;
  EXPECT_TRUE(build_model(c, tiled).graph.forward.ok);
  BuildOptions ragged;
  ragged.seq = 500;
  EXPECT_FALSE(build_model(c, ragged).graph.forward.ok);
}

TEST(NystromformerHeads, QuestionAnsweringAlwaysHasTwoOutputs) {
  BuildOptions options;
  options.class_name = "NystromformerForQuestionAnswering";
  auto g = build_model(Config::parse(R"({"model_type": "nystromformer", "num_labels": 5, "num_hidden_layers": 1})",
                                     "c.json"),
                       options)
               .graph;
  EXPECT_TRUE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("qa_outputs.weight")->shape, (Shape{2, 768}));
}

}  // namespace
