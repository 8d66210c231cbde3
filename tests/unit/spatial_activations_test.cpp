// Activation rules of the convolutional and two-tower node types: what autograd keeps, by hand.
#include <string>

#include <gtest/gtest.h>

#include "blocks/blocks.hpp"
#include "plan/activations.hpp"
#include "plan/cost.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

using graph::Shape;

struct Saved {
  std::int64_t bytes = 0;
  std::vector<std::string> what;
};

Saved saved_at(const graph::Graph& g, const std::string& name, const plan::Setup& s) {
  auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  for (const auto& n : g.nodes)
    if (n.name == name) {
      Saved out;
      for (const auto& t : model.nodes.at(static_cast<std::size_t>(n.index)).saved) {
        out.bytes += t.bytes(1);
        out.what.push_back(t.what);
      }
      return out;
    }
  ADD_FAILURE() << "no node " << name;
  return {};
}

// conv (3 -> 8, 3x3, stride 2, pad 1) -> BatchNorm + ReLU -> max pool 3/2/1 -> conv -> residual add + ReLU -> avg pool
graph::Graph small_convnet() {
  graph::GraphBuilder b;
  auto x = b.input({3, 32, 32}, "pixels");
  auto c1 = blocks::conv2d(b, x, "Conv", {.module = blocks::Scope("conv"), .in = 3, .out = 8, .kernel = 3, .stride = 2,
                                          .padding = 1, .bias = false});
  auto bn = blocks::batch_norm(b, c1, "BN", blocks::Scope("bn"), "relu");
  auto p = blocks::pool(b, bn, "MaxPool", true, 3, 2, 1);
  auto c2 = blocks::conv2d(b, p, "Conv2", {.module = blocks::Scope("conv2"), .in = 8, .out = 8, .kernel = 3,
                                           .padding = 1});
  auto sum = blocks::add(b, c2, p, "Add");
  b.at(sum).activation = "relu";
  auto avg = blocks::pool(b, sum, "AvgPool", false);
  return b.finish(avg);
}

TEST(SpatialActivations, ShapesFollowPyTorchFormulas) {
  auto g = small_convnet();
  EXPECT_EQ(g.nodes[1].out, (Shape{8, 16, 16}));
  EXPECT_EQ(g.nodes[3].out, (Shape{8, 8, 8}));
  EXPECT_EQ(g.nodes[6].out, (Shape{8, 1, 1}));
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
  ASSERT_NE(g.find_tensor("bn.num_batches_tracked"), nullptr);
  EXPECT_EQ(g.find_tensor("bn.num_batches_tracked")->dtype, DType::I64);
  EXPECT_EQ(g.find_tensor("conv2.weight")->shape, (Shape{8, 8, 3, 3}));
  EXPECT_EQ(g.parameter_count(), 8 * 3 * 9 + 2 * 8 + 8 * 8 * 9 + 8);
}

TEST(SpatialActivations, FullFineTuneKeepsConvInputsStatisticsAndIndices) {
  auto g = small_convnet();
  plan::Setup s;  // full, bf16 autocast
  // The fp32 pixels are cast to bf16 for the conv, which keeps the cast.
  EXPECT_EQ(saved_at(g, "Conv", s).bytes, 3 * 32 * 32 * 2);
  // BatchNorm keeps its bf16 input, mean and invstd per channel; the ReLU keeps its output.
  EXPECT_EQ(saved_at(g, "BN", s).bytes, 8 * 16 * 16 * 2 + 2 * 8 * 4 + 8 * 16 * 16 * 2);
  // Max pooling keeps its input and int64 argmax indices; its input is the ReLU's result, which autograd keeps
  // once (one storage, checked with saved-tensor hooks on transformers' ResNet): only the indices are new.
  EXPECT_EQ(saved_at(g, "MaxPool", s).bytes, 8 * 8 * 8 * 8);
  // The second conv's input is already bf16: kept as is.
  EXPECT_EQ(saved_at(g, "Conv2", s).bytes, 8 * 8 * 8 * 2);
  EXPECT_EQ(saved_at(g, "Add", s).bytes, 8 * 8 * 8 * 2);
  EXPECT_EQ(saved_at(g, "AvgPool", s).bytes, 0);
}

TEST(SpatialActivations, FrozenConvolutionsKeepNothingUnderLora) {
  auto g = small_convnet();
  plan::Setup s;
  s.mode = plan::Mode::LoRA;
  EXPECT_EQ(saved_at(g, "Conv", s).bytes, 0);
  EXPECT_EQ(saved_at(g, "Conv2", s).bytes, 0);
  // Batch statistics are still needed for the input gradient.
  EXPECT_GT(saved_at(g, "BN", s).bytes, 0);
}

TEST(SpatialActivations, ConvolutionFlopsCountEveryOutputPosition) {
  auto g = small_convnet();
  plan::Setup s;
  auto costs = plan::node_costs(g, s);
  // 2 * positions (16 * 16) * weight elements (8 * 3 * 3 * 3).
  EXPECT_DOUBLE_EQ(costs[1].flops_forward, 2.0 * 16 * 16 * 8 * 3 * 3 * 3);
}

TEST(SpatialActivations, BadFeatureMapsFailTheForwardCheck) {
  graph::GraphBuilder b;
  auto x = b.input({3, 4, 4}, "pixels");
  auto c = blocks::conv2d(b, x, "Conv", {.module = blocks::Scope("conv"), .in = 3, .out = 8, .kernel = 7});
  auto g = b.finish(c);
  EXPECT_FALSE(g.forward.ok);
  EXPECT_NE(g.forward.reason.find("smaller than the 7x7 kernel"), std::string::npos);

  graph::GraphBuilder b2;
  auto y = b2.input({4, 8, 8}, "pixels");
  auto c2 = blocks::conv2d(b2, y, "Conv", {.module = blocks::Scope("conv"), .in = 3, .out = 8, .kernel = 1});
  EXPECT_NE(b2.finish(c2).forward.reason.find("expects 3 channels"), std::string::npos);
}

TEST(SpatialActivations, NestedSubModelsPrefixNamesAndShiftBlocks) {
  graph::GraphBuilder b;
  auto pixels = b.input({3, 8, 8}, "pixels");
  graph::Value inner;
  {
    graph::Nested nest(b, {.module = "tower", .label = "T_", .first_block = 5});
    b.set_block(0);
    inner = blocks::conv2d(b, pixels, "Conv", {.module = blocks::Scope("conv"), .in = 3, .out = 4, .kernel = 1});
    auto ids = b.input({16}, "tokens");
    b.set_main_input(ids);
  }
  auto g = b.finish(inner);
  EXPECT_NE(g.find_tensor("tower.conv.weight"), nullptr);
  EXPECT_EQ(g.nodes[1].name, "T_Conv");
  EXPECT_EQ(g.nodes[1].path, "tower.conv");
  EXPECT_EQ(g.nodes[1].block, 5);
  EXPECT_EQ(g.nodes[2].name, "Input_input_ids");
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.input_kind, "tokens");
  EXPECT_EQ(g.input_shape, (Shape{16}));
}

// Autograd keeps one storage however many nodes hold it: in fp32 the max pool's input is the ReLU's result and the
// second convolution's input is the pool's output, which no node had kept before (measured on transformers'
// ResNet with saved-tensor hooks: the per-node count was 51 % high before this rule, 0.5 % after; docs/cpu-memory.md).
TEST(SpatialActivations, OneStorageIsKeptOnceHoweverManyNodesReadIt) {
  auto g = small_convnet();
  plan::Setup s;
  s.precision = plan::Precision::Fp32;
  EXPECT_EQ(saved_at(g, "Conv", s).bytes, 3 * 32 * 32 * 4);
  EXPECT_EQ(saved_at(g, "BN", s).bytes, 8 * 16 * 16 * 4 + 2 * 8 * 4 + 8 * 16 * 16 * 4);
  EXPECT_EQ(saved_at(g, "MaxPool", s).bytes, 8 * 8 * 8 * 8);  // indices only
  EXPECT_EQ(saved_at(g, "Conv2", s).bytes, 8 * 8 * 8 * 4);
  EXPECT_EQ(saved_at(g, "Add", s).bytes, 8 * 8 * 8 * 4);
}

}  // namespace
}  // namespace neurarch
