// Weights a model applies more than once (ALBERT's shared layer groups): the graph keeps a node per
// application and the tensors once, and the planner counts weights, gradients, optimizer state and
// autocast casts once while every application saves its own activations.
#include <string>

#include <gtest/gtest.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/memory.hpp"

using namespace neurarch;
using namespace neurarch::plan;

namespace {

// One shared group of one layer, run `layers` times.
graph::Graph albert(int layers) {
  const std::string json = R"({"model_type": "albert", "hidden_size": 64, "embedding_size": 16,
      "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100, "num_hidden_layers": )" +
                           std::to_string(layers) + "}";
  model::BuildOptions o;
  o.seq = 16;
  return model::build_model(Config::parse(json, "albert.json"), o).graph;
}

Runtime exact_runtime() {
  Runtime rt = default_runtime();
  rt.allocator_block_bytes = 1;
  rt.fragmentation_fraction = 0;
  rt.cublas_workspace_bytes = 0;
  rt.cuda_context_bytes = 0;
  return rt;
}

int index_of(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return n.index;
  return -1;
}

}  // namespace

TEST(SharedWeights, LaterApplicationsAliasTheFirst) {
  const auto one = albert(1), three = albert(3);
  EXPECT_EQ(three.saved_scalars(), one.saved_scalars());
  EXPECT_EQ(three.parameter_count(), one.parameter_count());
  EXPECT_EQ(three.layer_count(), one.layer_count() + 2 * 6);  // attention, add, norm, ffn, add, norm
  int aliases = 0;
  for (const auto& t : three.tensors)
    if (!t.saved()) {
      ++aliases;
      EXPECT_EQ(t.tied_to, t.name);
      EXPECT_NE(three.find_tensor(t.name), &t);  // the first declaration owns it
    }
  EXPECT_EQ(aliases, 2 * 16);  // q/k/v/dense, two norms, ffn, ffn_output: 16 tensors per application
}

TEST(SharedWeights, PlannerCountsWeightsOnceAndActivationsPerApplication) {
  plan::Setup s;  // full fine-tune, bf16 autocast
  const auto one_graph = albert(1), three_graph = albert(3);
  MemoryModel one(one_graph, s, exact_runtime()), three(three_graph, s, exact_runtime());
  EXPECT_EQ(three.trainable_parameters(), one.trainable_parameters());
  EXPECT_EQ(three.static_terms().parameters, one.static_terms().parameters);
  EXPECT_EQ(three.static_terms().optimizer_state, one.static_terms().optimizer_state);
  EXPECT_EQ(three.static_terms().autocast_copies, one.static_terms().autocast_copies);
  const int second = index_of(three_graph, "FFN_1"), third = index_of(three_graph, "FFN_2");
  ASSERT_GE(second, 0);
  ASSERT_GE(third, 0);
  EXPECT_GT(three.node_activation_bytes(third, 1), 0);
  EXPECT_EQ(three.node_activation_bytes(third, 1), three.node_activation_bytes(second, 1));
  EXPECT_EQ(three.node_activation_bytes(index_of(three_graph, "Attention_2"), 1),
            three.node_activation_bytes(index_of(three_graph, "Attention_1"), 1));
}
