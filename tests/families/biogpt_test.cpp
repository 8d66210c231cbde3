// BioGPT: every ground-truth class, microsoft/biogpt's size (the class defaults), the 2-row position
// offset and its limit.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

using namespace neurarch;

TEST(BioGptGraph, PositionsAreOffsetByTwoRows) {
  auto build = [](const std::string& extra) {
    return model::build_model(Config::parse(R"({"model_type": "biogpt", "architectures": ["BioGptForCausalLM"])" +
                                                extra + "}",
                                            "config.json"))
        .graph;
  };
  auto g = build("");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  EXPECT_EQ(g.input_shape, (graph::Shape{1024}));  // max_position_embeddings, not the table's 1026 rows
  EXPECT_EQ(g.find_tensor("biogpt.embed_positions.weight")->shape, (graph::Shape{1026, 1024}));
  EXPECT_EQ(g.find_tensor("output_projection.weight")->tied_to, "biogpt.embed_tokens.weight");
  // microsoft/biogpt: 346,763,264 parameters in the base model and head (the LM head tied).
  EXPECT_EQ(g.saved_scalars(), 346'763'264);
  model::BuildOptions longer;
  longer.seq = 1025;
  auto too_long = model::build_model(Config::parse(R"({"model_type": "biogpt"})", "config.json"), longer).graph;
  EXPECT_FALSE(too_long.forward.ok);
}
