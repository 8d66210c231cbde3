#include <set>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace {

using neurarch::Config;
using neurarch::model::build_model;

std::set<std::string> saved_names(const neurarch::graph::Graph& g) {
  std::set<std::string> names;
  for (const auto& t : g.tensors)
    if (t.saved()) {
      EXPECT_TRUE(names.insert(t.name).second) << "duplicate " << t.name;
    }
  return names;
}

TEST(XmodLayers, PreNormAddsTheEncoderNormAndKeepsEachTensorOnce) {
  auto g = build_model(Config::parse(R"({"model_type": "xmod", "pre_norm": true, "num_hidden_layers": 2,
                                         "languages": ["en_XX", "de_DE"]})",
                                     "config.json"))
               .graph;
  auto names = saved_names(g);
  EXPECT_TRUE(names.count("encoder.LayerNorm.weight"));
  EXPECT_TRUE(names.count("encoder.layer.1.output.adapter_modules.de_DE.dense2.bias"));
  EXPECT_TRUE(names.count("encoder.layer.1.output.LayerNorm.weight"));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(XmodLayers, SeparateAdapterNorm) {
  auto g = build_model(Config::parse(R"({"model_type": "xmod", "adapter_layer_norm": true, "num_hidden_layers": 1})",
                                     "config.json"))
               .graph;
  auto names = saved_names(g);
  EXPECT_TRUE(names.count("encoder.layer.0.output.adapter_layer_norm.bias"));
  EXPECT_EQ(g.find_tensor("encoder.layer.0.output.adapter_modules.en_XX.dense1.weight")->shape,
            (neurarch::graph::Shape{384, 768}));
}

}  // namespace
