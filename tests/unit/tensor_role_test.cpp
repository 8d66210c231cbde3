// The role a block declares for a parameter (graph::TensorRole), not its name or rank, decides what the
// planners make of it: autocast copies, LoRA adapters, 4-bit storage.
#include <string>

#include <gtest/gtest.h>

#include "graph/builder.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using graph::NodeType;
using graph::TensorRole;

// One Linear node owning a tensor of each kind, some under names that would mislead a reader of suffixes.
graph::Graph mixed_roles() {
  graph::GraphBuilder b;
  auto x = b.input({8}, "tokens");
  auto h = b.node(NodeType::Linear, "Mixed", {8, 16}, {x}, graph::Scope("mixed"));
  b.parameter(h, "mixed.dense.weight", {16, 16}, TensorRole::Linear);
  // A lookup table read by index, though it ends in ".weight" and is 2-D.
  b.parameter(h, "mixed.table.weight", {16, 16}, TensorRole::Embedding);
  // A scale of rank 2 named like a weight.
  b.parameter(h, "mixed.gain.weight", {1, 16}, TensorRole::Other);
  // A bare matrix with no weight suffix at all, multiplied as one (DBRX's w1).
  b.parameter(h, "mixed.w1", {16, 16}, TensorRole::Matrix);
  // Experts' matrices stacked in one parameter.
  b.parameter(h, "mixed.experts", {2, 16, 16}, TensorRole::Stacked);
  b.parameter(h, "mixed.dense.bias", {16}, TensorRole::Bias);
  return b.finish(h);
}

const plan::WeightRole& role_of(const graph::Graph& g, const std::vector<plan::WeightRole>& roles,
                                const std::string& name) {
  for (std::size_t i = 0; i < g.tensors.size(); ++i)
    if (g.tensors[i].name == name) return roles[i];
  ADD_FAILURE() << "no tensor " << name;
  return roles.front();
}

TEST(TensorRole, IsStoredOnTheTensor) {
  auto g = mixed_roles();
  ASSERT_NE(g.find_tensor("mixed.table.weight"), nullptr);
  EXPECT_EQ(g.find_tensor("mixed.table.weight")->role, TensorRole::Embedding);
  EXPECT_EQ(g.find_tensor("mixed.w1")->role, TensorRole::Matrix);
}

TEST(TensorRole, DecidesAutocastCopiesNotTheName) {
  auto g = mixed_roles();
  plan::Setup s;
  const auto roles = plan::weight_roles(g, s);
  EXPECT_TRUE(role_of(g, roles, "mixed.dense.weight").matmul);
  EXPECT_FALSE(role_of(g, roles, "mixed.table.weight").matmul);
  EXPECT_FALSE(role_of(g, roles, "mixed.gain.weight").matmul);
  EXPECT_TRUE(role_of(g, roles, "mixed.w1").matmul);
  EXPECT_TRUE(role_of(g, roles, "mixed.experts").matmul);
  EXPECT_FALSE(role_of(g, roles, "mixed.dense.bias").matmul);
}

TEST(TensorRole, OnlyALinearIsAdapted) {
  auto g = mixed_roles();
  plan::Setup s;
  s.mode = plan::Mode::LoRA;
  s.lora_rank = 4;
  const auto roles = plan::weight_roles(g, s);
  const auto& dense = role_of(g, roles, "mixed.dense.weight");
  EXPECT_TRUE(dense.lora_target);
  EXPECT_EQ(dense.lora_parameters, 4 * (16 + 16));
  for (const char* name : {"mixed.table.weight", "mixed.gain.weight", "mixed.w1", "mixed.experts", "mixed.dense.bias"}) {
    EXPECT_FALSE(role_of(g, roles, name).lora_target) << name;
    EXPECT_EQ(role_of(g, roles, name).lora_parameters, 0) << name;
  }
}

TEST(TensorRole, QLoRAQuantizesTwoDimensionalMatmulWeightsOnly) {
  auto g = mixed_roles();
  plan::Setup s;
  s.mode = plan::Mode::QLoRA;
  const auto roles = plan::weight_roles(g, s);
  EXPECT_TRUE(role_of(g, roles, "mixed.dense.weight").quantized);
  EXPECT_TRUE(role_of(g, roles, "mixed.w1").quantized);
  EXPECT_FALSE(role_of(g, roles, "mixed.table.weight").quantized);
  EXPECT_FALSE(role_of(g, roles, "mixed.gain.weight").quantized);
  EXPECT_FALSE(role_of(g, roles, "mixed.experts").quantized);
}

// The role says what the tensor is; the node's op says whether it runs a matmul: a Linear weight owned by a
// LayerNorm node is no matmul weight (tests/unit/op_schema_test.cpp holds real graphs to never declaring one).
TEST(TensorRole, ANodeThatRunsNoMatmulHasNoMatmulWeight) {
  graph::GraphBuilder b;
  auto x = b.input({8}, "tokens");
  auto t = b.node(NodeType::Embedding, "Embed", {8, 16}, {x});
  b.parameter(t, "embed.weight", {32, 16}, TensorRole::Embedding);
  auto e = b.node(NodeType::LayerNorm, "Norm", {8, 16}, {t});
  b.parameter(e, "norm.proj.weight", {16, 16}, TensorRole::Linear);
  auto g = b.finish(e);
  plan::Setup s;
  s.mode = plan::Mode::QLoRA;
  const auto roles = plan::weight_roles(g, s);
  for (const auto& r : roles) {
    EXPECT_FALSE(r.matmul);
    EXPECT_FALSE(r.quantized);
    EXPECT_FALSE(r.lora_target);
  }
}

}  // namespace
}  // namespace neurarch
