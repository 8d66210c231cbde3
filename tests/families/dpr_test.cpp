#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::graph::Shape;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

TEST(DPRClasses, EachWrapperKeepsItsPath) {
  Config c = Config::parse(R"({"model_type": "dpr", "num_hidden_layers": 1, "projection_dim": 128})", "c.json");
  BuildOptions context;
  context.class_name = "DPRContextEncoder";
  auto ctx = build_model(c, context).graph;
  EXPECT_NE(ctx.find_tensor("ctx_encoder.bert_model.encoder.layer.0.output.dense.weight"), nullptr);
  EXPECT_EQ(ctx.find_tensor("ctx_encoder.encode_proj.weight")->shape, (Shape{128, 768}));
  EXPECT_EQ(ctx.find_tensor("ctx_encoder.bert_model.pooler.dense.weight"), nullptr);

  BuildOptions reader;
  reader.class_name = "DPRReader";
  auto r = build_model(Config::parse(R"({"model_type": "dpr", "num_hidden_layers": 1})", "c.json"), reader).graph;
  EXPECT_NE(r.find_tensor("span_predictor.encoder.bert_model.embeddings.word_embeddings.weight"), nullptr);
  EXPECT_EQ(r.find_tensor("span_predictor.qa_outputs.weight")->shape, (Shape{2, 768}));
  EXPECT_EQ(r.find_tensor("span_predictor.qa_classifier.weight")->shape, (Shape{1, 768}));
  EXPECT_TRUE(r.forward.ok);
}

}  // namespace
