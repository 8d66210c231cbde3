#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;
using neurarch::model::BuildOptions;

TEST(NezhaForward, RelativeEncodingsCoverOnlyMaxPositions) {
  Config c = Config::parse(R"({"model_type": "nezha", "num_hidden_layers": 1})", "config.json");
  BuildOptions fits;
  fits.seq = 512;
  EXPECT_TRUE(build_model(c, fits).graph.forward.ok);
  BuildOptions too_long;
  too_long.seq = 513;
  auto g = build_model(c, too_long).graph;
  EXPECT_FALSE(g.forward.ok);
  EXPECT_EQ(g.find_tensor("embeddings.position_embeddings.weight"), nullptr);
}

}  // namespace
