// FrozenBatchNorm2d (affine and statistics in buffers): what the planners make of it, by hand.
#include <string>

#include <gtest/gtest.h>

#include "blocks/blocks.hpp"
#include "blocks/frozen_norm.hpp"
#include "plan/activations.hpp"
#include "plan/memory.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using graph::Shape;

std::int64_t saved_at(const graph::Graph& g, const std::string& name, const plan::Setup& s) {
  auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  for (const auto& n : g.nodes)
    if (n.name == name) return model.nodes.at(static_cast<std::size_t>(n.index)).bytes_per_sample();
  ADD_FAILURE() << "no node " << name;
  return -1;
}

plan::Runtime exact_runtime() {
  plan::Runtime rt = plan::default_runtime();
  rt.allocator_block_bytes = 1;
  rt.fragmentation_fraction = 0;
  rt.cublas_workspace_bytes = 0;
  rt.cuda_context_bytes = 0;
  return rt;
}

// DETR's backbone in miniature: stem conv -> frozen BN + ReLU -> max pool -> conv -> frozen BN + ReLU.
graph::Graph frozen_norms() {
  graph::GraphBuilder b;
  auto x = b.input({3, 32, 32}, "pixels");
  auto c1 = blocks::conv2d(b, x, "Stem", {.module = blocks::Scope("conv1"), .in = 3, .out = 8, .kernel = 3,
                                          .stride = 2, .padding = 1, .bias = false});
  auto bn1 = blocks::frozen_batch_norm(b, c1, "Stem_BN", blocks::Scope("bn1"), "relu");
  auto p = blocks::pool(b, bn1, "MaxPool", true, 3, 2, 1);
  auto c2 = blocks::conv2d(b, p, "Conv", {.module = blocks::Scope("conv2"), .in = 8, .out = 8, .kernel = 3,
                                          .padding = 1, .bias = false});
  auto bn2 = blocks::frozen_batch_norm(b, c2, "BN", blocks::Scope("bn2"), "relu");
  return b.finish(bn2);
}

// Pixels through a batch norm whose affine is buffers: nothing there needs a gradient.
graph::Graph frozen_norm_on_pixels() {
  graph::GraphBuilder b;
  auto x = b.input({3, 16, 16}, "pixels");
  auto bn = blocks::frozen_batch_norm(b, x, "BN", blocks::Scope("bn"), "relu");
  auto c = blocks::conv2d(b, bn, "Conv", {.module = blocks::Scope("conv"), .in = 3, .out = 4, .kernel = 1});
  return b.finish(c);
}

TEST(FrozenBatchNorm, HoldsBuffersOnly) {
  auto g = frozen_norms();
  for (const char* leaf : {"weight", "bias", "running_mean", "running_var"}) {
    const auto* t = g.find_tensor(std::string("bn1.") + leaf);
    ASSERT_NE(t, nullptr) << leaf;
    EXPECT_EQ(t->kind, graph::TensorKind::Buffer);
  }
  EXPECT_EQ(g.find_tensor("bn1.num_batches_tracked"), nullptr);
  EXPECT_EQ(g.parameter_count(), 8 * 3 * 9 + 8 * 8 * 9);
  EXPECT_EQ(g.saved_scalars(), 8 * 3 * 9 + 8 * 8 * 9 + 2 * 4 * 8);
}

TEST(FrozenBatchNorm, KeepsOnlyTheWiderProductItsReluReads) {
  auto g = frozen_norms();
  plan::Setup s;  // full, bf16 autocast
  // The bf16 conv output times fp32 buffers is fp32; no input or batch statistics are kept.
  EXPECT_EQ(saved_at(g, "Stem_BN", s), 8 * 16 * 16 * 4);
  // The max pool keeps that fp32 map (the ReLU's result, already kept: one storage) and its indices; the next
  // conv keeps a bf16 cast of its input.
  EXPECT_EQ(saved_at(g, "MaxPool", s), 8 * 8 * 8 * 8);
  EXPECT_EQ(saved_at(g, "Conv", s), 8 * 8 * 8 * 2);
  EXPECT_EQ(saved_at(g, "BN", s), 8 * 8 * 8 * 4);
}

TEST(FrozenBatchNorm, NothingIsKeptBeforeTheFirstParameter) {
  auto g = frozen_norm_on_pixels();
  plan::Setup s;
  EXPECT_EQ(saved_at(g, "BN", s), 0);
  EXPECT_EQ(saved_at(g, "Conv", s), 3 * 16 * 16 * 2);
}

TEST(FrozenBatchNorm, BuffersGetNoGradientsOrOptimizerState) {
  auto g = frozen_norms();
  plan::Setup s;  // full, bf16 autocast, AdamW
  plan::MemoryModel m(g, s, exact_runtime());
  const std::int64_t params = 8 * 3 * 9 + 8 * 8 * 9;
  EXPECT_EQ(m.trainable_parameters(), params);
  EXPECT_EQ(m.static_terms().gradients, params * 4);
  EXPECT_EQ(m.static_terms().optimizer_state, params * 8);
  EXPECT_EQ(m.static_terms().parameters, params * 4 + 2 * 4 * 8 * 4);
}

}  // namespace
}  // namespace neurarch
