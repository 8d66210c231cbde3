// Parameters the reference freezes (requires_grad False): what each planner makes of them, on a graph
// built by hand so every byte can be worked out.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "blocks/blocks.hpp"
#include "plan/cost.hpp"
#include "plan/memory.hpp"
#include "plan/weights.hpp"
#include "render/render.hpp"
#include "report/report.hpp"

namespace neurarch {
namespace {

plan::Runtime exact_runtime() {
  plan::Runtime rt = plan::default_runtime();
  rt.allocator_block_bytes = 1;
  rt.fragmentation_fraction = 0;
  rt.cublas_workspace_bytes = 0;
  rt.cuda_context_bytes = 0;
  return rt;
}

// features [16, 8] -> frozen Linear 8->8 -> trained Linear 8->4.
graph::Graph frozen_then_trained() {
  graph::GraphBuilder b;
  auto x = b.input({16, 8}, "features");
  auto frozen = blocks::dense(b, x, "Frozen", blocks::Scope("frozen"), 8, 8, true);
  b.freeze(frozen);
  auto trained = blocks::dense(b, frozen, "Trained", blocks::Scope("trained"), 8, 4, true);
  return b.finish(trained);
}

int node_index(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n.index;
  ADD_FAILURE() << "no node " << name;
  return 0;
}

TEST(FrozenParameters, CountedButNeverTrained) {
  const auto g = frozen_then_trained();
  EXPECT_TRUE(g.find_tensor("frozen.weight")->frozen);
  EXPECT_TRUE(g.find_tensor("frozen.bias")->frozen);
  EXPECT_FALSE(g.find_tensor("trained.weight")->frozen);
  EXPECT_EQ(g.parameter_count(), 8 * 8 + 8 + 8 * 4 + 4);
  EXPECT_EQ(g.frozen_parameter_count(), 8 * 8 + 8);

  plan::Setup full;  // AdamW, bf16 autocast
  plan::MemoryModel memory(g, full, exact_runtime());
  EXPECT_EQ(memory.trainable_parameters(), 8 * 4 + 4);
  const auto& terms = memory.static_terms();
  EXPECT_EQ(terms.parameters, g.parameter_count() * 4);  // every weight is stored in fp32
  EXPECT_EQ(terms.gradients, (8 * 4 + 4) * 4);
  EXPECT_EQ(terms.autocast_copies, 8 * 4 * 2);  // autocast caches only weights that require grad
}

TEST(FrozenParameters, NothingUpstreamOfTheFirstTrainedWeightIsRecorded) {
  const auto g = frozen_then_trained();
  const auto recorded = plan::recorded_by_autograd(g);
  EXPECT_FALSE(recorded[static_cast<std::size_t>(node_index(g, "Frozen"))]);
  EXPECT_TRUE(recorded[static_cast<std::size_t>(node_index(g, "Trained"))]);

  plan::Setup full;
  plan::MemoryModel memory(g, full, exact_runtime());
  const auto& acts = memory.activations().nodes;
  EXPECT_EQ(acts.at(static_cast<std::size_t>(node_index(g, "Frozen"))).bytes_per_sample(), 0);
  // The trained linear keeps the bf16 cast of its input for its weight gradient.
  EXPECT_EQ(acts.at(static_cast<std::size_t>(node_index(g, "Trained"))).bytes_per_sample(), 16 * 8 * 2);

  const auto costs = plan::node_costs(g, full);
  EXPECT_EQ(costs.at(static_cast<std::size_t>(node_index(g, "Frozen"))).flops_backward, 0.0);
  EXPECT_GT(costs.at(static_cast<std::size_t>(node_index(g, "Frozen"))).flops_forward, 0.0);
  EXPECT_GT(costs.at(static_cast<std::size_t>(node_index(g, "Trained"))).flops_backward, 0.0);
}

TEST(FrozenParameters, TheReportSaysWhichAreFrozen) {
  report::Report r;
  r.graph = frozen_then_trained();
  const auto j = render::to_json(r);
  EXPECT_EQ(j["parameters"]["frozen"], 8 * 8 + 8);
  EXPECT_EQ(j["parameters"]["trainable"], 8 * 4 + 4);
  for (const auto& t : j["tensors"])
    EXPECT_EQ(t.value("frozen", false), t["name"].get<std::string>().starts_with("frozen.")) << t["name"];
}

}  // namespace
}  // namespace neurarch
