// Hostile configs are refused from their declared sizes before anything is built, and the builder's
// budget stops what that check misjudges; the largest published models stay far inside every limit.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/config.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "graph/budget.hpp"
#include "model/build.hpp"
#include "model/declared_sizes.hpp"
#include "plan/plan.hpp"

namespace neurarch {
namespace {
namespace fs = std::filesystem;

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The message of the InvalidInput error building `config_text` throws; "" when it builds.
std::string build_error(const std::string& config_text, const model::BuildOptions& options = {}) {
  try {
    model::build_model(Config::parse(config_text, "config.json"), options);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::InvalidInput) << e.what();
    return e.what();
  }
  return "";
}

TEST(DeclaredSizes, LargestPublishedModelsBuildAndPlanFarInsideTheLimits) {
  const fs::path dir = fs::path(NEURARCH_SOURCE_DIR) / "tests/data/published_configs";
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().filename().string());
    ++seen;
    const Config config = Config::parse(read_file(entry.path()), entry.path().filename().string());
    // At a 131,072-token context, the estimates stay 8x below the limits (and a batch of 8 passes)...
    model::BuildOptions at_full_context;
    at_full_context.seq = 131072;
    EXPECT_NO_THROW(model::check_declared_sizes(config, at_full_context, 8));
    const auto sizes = model::check_declared_sizes(config, at_full_context, 1);
    EXPECT_LT(sizes.units * 8, static_cast<double>(limits::kMaxTensors));
    EXPECT_LT(sizes.activations * 8, static_cast<double>(limits::kMaxActivationScalars));
    // ...and what the build makes is 8x below the builder's budget.
    const auto built = model::build_model(config);
    EXPECT_LT(built.graph.nodes.size() * 8, static_cast<std::size_t>(limits::kMaxNodes));
    EXPECT_LT(built.graph.tensors.size() * 8, static_cast<std::size_t>(limits::kMaxTensors));
    EXPECT_LE(static_cast<double>(built.graph.tensors.size()), sizes.units);  // the estimate bounds the build
    plan::PlanOptions plan;
    EXPECT_NO_THROW(plan::make_plan(built.graph, plan));
  }
  // DeepSeek-V3, Kimi K2, Llama-3.1-405B, Mixtral 8x22B, Qwen3-235B-A22B, Falcon-180B, BLOOM-176B
  EXPECT_EQ(seen, 7);
}

TEST(DeclaredSizes, EveryBundledConfigPasses) {
  for (const auto& entry : fs::directory_iterator(fs::path(NEURARCH_SOURCE_DIR) / "data/catalogue")) {
    SCOPED_TRACE(entry.path().filename().string());
    EXPECT_EQ(build_error(read_file(entry.path())), "");
  }
}

TEST(DeclaredSizes, AbsurdLayerCountIsRefusedByItsKey) {
  const auto message = build_error(R"({"model_type": "llama", "num_hidden_layers": 100000000})");
  EXPECT_NE(message.find("config.json: key 'num_hidden_layers'"), std::string::npos) << message;
  EXPECT_NE(message.find("over the limit of 4096"), std::string::npos) << message;
}

TEST(DeclaredSizes, NestedSubModelIsNamedByItsPath) {
  const auto message = build_error(
      R"({"model_type": "llava", "text_config": {"model_type": "llama", "num_hidden_layers": 5000}})");
  EXPECT_NE(message.find("key 'text_config.num_hidden_layers'"), std::string::npos) << message;
}

TEST(DeclaredSizes, ManyStacksTogetherAreRefused) {
  std::string config = R"({"model_type": "bart")";
  for (int i = 0; i < 8; ++i) config += fmt::format(R"(, "stack{}": {{"num_layers": 4000}})", i);
  config += "}";
  EXPECT_NE(build_error(config).find("more than 16384 layers in all"), std::string::npos);
}

TEST(DeclaredSizes, ExpertsTimesLayersIsRefused) {
  const auto message = build_error(
      R"({"model_type": "mixtral", "num_hidden_layers": 4000, "num_local_experts": 8000, "hidden_size": 64,
          "intermediate_size": 64, "num_attention_heads": 1, "num_key_value_heads": 1})");
  EXPECT_NE(message.find("nodes and tensors, over the limit"), std::string::npos) << message;
}

TEST(DeclaredSizes, ALongListOfStagesCounts) {
  // wav2vec2 makes a convolution per entry of conv_dim: a million entries is a million layers.
  std::string dims;
  for (int i = 0; i < 20000; ++i) dims += i ? ",512" : "512";
  const auto message = build_error(R"({"model_type": "wav2vec2", "conv_dim": [)" + dims + "]}");
  EXPECT_NE(message.find("key 'conv_dim'"), std::string::npos) << message;
}

TEST(DeclaredSizes, OptionsPastTheirLimitsAreRefused) {
  const std::string gpt2 = read_file(fs::path(NEURARCH_SOURCE_DIR) / "data/catalogue/gpt2.json");
  model::BuildOptions o;
  o.seq = limits::kMaxSequence + 1;
  EXPECT_NE(build_error(gpt2, o).find("--seq"), std::string::npos);
  o = {};
  o.image_size = limits::kMaxImageSide + 1;
  EXPECT_NE(build_error(gpt2, o).find("--image-size"), std::string::npos);
  const Config config = Config::parse(gpt2, "config.json");
  EXPECT_THROW(model::check_declared_sizes(config, {}, limits::kMaxBatch + 1), Error);
  // A long context on a large batch is a step no card holds, but one the planner can still count.
  o = {};
  o.seq = 1 << 20;
  try {
    model::check_declared_sizes(config, o, 65536);
    FAIL() << "a batch of 65536 x 1M tokens was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("activation scalars"), std::string::npos) << e.what();
  }
}

TEST(DeclaredSizes, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = R"({"model_type": "gpt2", "x": )" + std::string(100000, '[') + std::string(100000, ']') + "}";
  try {
    Config::parse(deep, "config.json");
    FAIL() << "parsed";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nested deeper than 64 levels"), std::string::npos) << e.what();
  }
}

TEST(BuildBudget, BuilderStopsAtItsNodeAndTensorBudget) {
  const std::string gpt2 = read_file(fs::path(NEURARCH_SOURCE_DIR) / "data/catalogue/gpt2.json");
  {
    // The declared-size estimate (12 layers x 16) passes a budget of 20 x kEstimateSlack; the build does not.
    graph::BudgetScope scope({20, limits::kMaxTensors, std::nullopt});
    EXPECT_NE(build_error(gpt2).find("more than 20 nodes"), std::string::npos);
  }
  {
    graph::BudgetScope scope({limits::kMaxNodes, 30, std::nullopt});
    EXPECT_NE(build_error(gpt2).find("more than 30 tensors"), std::string::npos);
  }
  EXPECT_EQ(build_error(gpt2), "");  // the default budget is back
}

TEST(BuildBudget, BuilderStopsPastItsDeadline) {
  const std::string gpt2 = read_file(fs::path(NEURARCH_SOURCE_DIR) / "data/catalogue/gpt2.json");
  graph::BudgetScope scope({limits::kMaxNodes, limits::kMaxTensors, std::chrono::steady_clock::now()});
  EXPECT_NE(build_error(gpt2).find("time budget"), std::string::npos);
}

}  // namespace
}  // namespace neurarch
