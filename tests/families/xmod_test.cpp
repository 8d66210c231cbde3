#include <set>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/memory.hpp"
#include "support/tiny_plan_graphs.hpp"

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

// A sample runs its own language's adapter only: the others require a gradient but backward never reaches them, so
// a full fine-tune counts them as trainable and gives them no gradient and no optimizer state.
TEST(XmodLayers, OtherLanguagesAdaptersGetNoGradientOrOptimizerState) {
  auto g = build_model(Config::parse(R"({"model_type": "xmod", "num_hidden_layers": 1, "languages": ["en_XX", "de_DE"]})",
                                     "config.json"))
               .graph;
  std::int64_t total = 0, idle = 0;
  for (const auto& t : g.tensors) {
    if (!t.saved() || t.kind != neurarch::graph::TensorKind::Parameter) continue;
    total += t.scalars();
    if (t.name.find("adapter_modules.de_DE.") != std::string::npos) idle += t.scalars();
  }
  EXPECT_EQ(idle, 2 * 384 * 768 + 384 + 768);
  neurarch::plan::Setup s;
  s.precision = neurarch::plan::Precision::Fp32;
  const neurarch::plan::MemoryModel m(g, s, neurarch::testing::exact_runtime());
  EXPECT_EQ(m.trainable_parameters(), total);
  EXPECT_EQ(m.static_terms().gradients, (total - idle) * 4);
  EXPECT_EQ(m.static_terms().optimizer_state, (total - idle) * 8);  // AdamW's two fp32 moments
}

}  // namespace
