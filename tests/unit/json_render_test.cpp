// render::json writes the long arrays directly; it must say exactly what the DOM (to_json) says.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "graph/builder.hpp"
#include "render/render.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

namespace {
void expect_same(const std::string& id, bool plan) {
  auto model = neurarch::resolve::resolve(id, {});
  neurarch::pipeline::TraceOptions options;
  if (plan) {
    options.plan = neurarch::plan::PlanOptions{};
    options.plan->full.mode = neurarch::plan::Mode::Full;
    options.plan->lora.mode = neurarch::plan::Mode::LoRA;
  }
  auto r = neurarch::pipeline::trace(model, options);
  EXPECT_EQ(nlohmann::json::parse(neurarch::render::json(r)), neurarch::render::to_json(r)) << id;
}
}  // namespace

TEST(JsonRender, FastWriterMatchesTheDocument) {
  expect_same("facebook/dinov2-small", false);
  expect_same("gpt2", true);  // a tied head: "tied_to"
  expect_same("meta-llama/Meta-Llama-3-8B", true);
  expect_same("bert-base-uncased", false);
}

TEST(JsonRender, EscapesStrings) {
  neurarch::graph::GraphBuilder b;
  auto x = b.input({4}, "tokens");
  x = b.node(neurarch::graph::NodeType::Linear, "odd \"name\"\t\\ \x01", {4, 2}, {x},
             neurarch::graph::Scope("path\\with\"quotes"));
  b.parameter(x, "w\"eight\n", {2, 2}, neurarch::graph::TensorRole::Linear);
  neurarch::report::Report r;
  r.graph = b.finish(x);
  EXPECT_EQ(nlohmann::json::parse(neurarch::render::json(r)), neurarch::render::to_json(r));
}

// Regression (fuzz/config_fuzzer.cpp): a string that is not UTF-8 — a LoRA target typed on the command
// line, echoed in the plan's setup — made the JSON writer throw half-way through the report.
TEST(JsonRender, BytesThatAreNotUtf8AreReplacedNotThrown) {
  neurarch::graph::GraphBuilder b;
  auto x = b.input({4}, "tokens");
  neurarch::report::Report r;
  r.graph = b.finish(x);
  r.notes = {"target \xff\xfe typed by hand"};
  std::string out;
  ASSERT_NO_THROW(out = neurarch::render::json(r));
  EXPECT_NE(out.find("target \xEF\xBF\xBD\xEF\xBF\xBD typed by hand"), std::string::npos);
}
