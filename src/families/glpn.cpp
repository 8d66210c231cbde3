// GLPN (models/glpn/modeling_glpn.py, transformers 4.47.1 and 5.24): SegFormer's Mix Transformer encoder
// (segformer.hpp; GLPNEncoder is a copy) under `glpn`, then for depth estimation a decoder that climbs the stages
// from the deepest: per stage a 1x1 conv to decoder_hidden_size (none when the widths already agree), a selective
// feature fusion with the previous stage's output (skipped in the first: concatenated local and global maps ->
// 3x3 conv + BatchNorm + ReLU -> 3x3 conv to half + BatchNorm + ReLU -> 3x3 conv to two sigmoid weights that mix
// them) and a 2x bilinear upsample, the last stage upsampled once more; the head is 3x3 conv + ReLU -> 3x3 conv to
// one channel, sigmoid x max_depth.
#include <fmt/format.h>

#include "blocks/upsample.hpp"
#include "families/dpt_common.hpp"
#include "families/segformer.hpp"

namespace neurarch::families {
namespace glpn_impl {
namespace {

using namespace blocks;
using graph::NodeType;

// GLPNSelectiveFeatureFusion: two [c, h, w] maps -> their weighted sum.
Value selective_fusion(GraphBuilder& b, const Value& local, const Value& global, const std::string& name,
                       const Scope& module, std::int64_t c) {
  // torch.cat along channels: no parameters, nothing saved for backward.
  auto joined = b.node(NodeType::Add, name + "_Concat", {2 * c, local.shape[1], local.shape[2]}, {local, global});
  if (local.shape != global.shape) b.fail(joined, "fuses maps of different sizes");
  auto h = conv2d(b, joined, name + "_Conv1",
                  {.module = module / "convolutional_layer1" / 0, .in = 2 * c, .out = c, .kernel = 3, .padding = 1});
  h = batch_norm(b, h, name + "_BatchNorm1", module / "convolutional_layer1" / 1, "relu");
  h = conv2d(b, h, name + "_Conv2",
             {.module = module / "convolutional_layer2" / 0, .in = c, .out = c / 2, .kernel = 3, .padding = 1});
  h = batch_norm(b, h, name + "_BatchNorm2", module / "convolutional_layer2" / 1, "relu");
  h = conv2d(b, h, name + "_Conv3",
             {.module = module / "convolutional_layer3", .in = c / 2, .out = 2, .kernel = 3, .padding = 1});
  b.at(h).activation = "sigmoid";
  return b.node(NodeType::Add, name + "_Mix", local.shape, {local, global, h});
}

Value build(const BuildInput& in, GraphBuilder& b) {
  const Config& c = in.config;
  // GLPN's image processor keeps the image's size (rounded down to a multiple of 32); NYU Depth v2 frames are
  // 480 pixels high, built here as a 480 x 480 square.
  const auto encoder = segformer::encoder(in, b, in.head == Head::Base ? Scope() : Scope("glpn"), 480);
  if (in.head == Head::Base) return encoder.maps.back();

  const std::int64_t width = c.dim({"decoder_hidden_size"}, 64);
  const Scope decoder("decoder");
  std::vector<Value> stages;
  Value previous;
  const std::size_t n = encoder.maps.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Scope stage = decoder / "stages" / static_cast<std::int64_t>(i);
    const std::string name = fmt::format("Decoder_Stage_{}", i);
    Value h = encoder.maps[n - 1 - i];
    if (h.shape.front() != width)
      h = conv2d(b, h, name + "_Conv", {.module = stage / "convolution", .in = h.shape.front(), .out = width});
    if (i > 0) h = selective_fusion(b, h, previous, name + "_Fusion", stage / "fusion", width);
    previous = resize(b, h, name + "_Upsample", 2 * h.shape[1], 2 * h.shape[2]);
    stages.push_back(previous);
  }
  stages.back() = resize(b, stages.back(), "Decoder_Final_Upsample", 2 * stages.back().shape[1],
                         2 * stages.back().shape[2]);

  const std::int64_t at = c.integer({"head_in_index"}, -1);
  Value h = stages[dpt::python_index(c, "head_in_index", at, stages.size())];
  h = conv2d(b, h, "Head_Conv1", {.module = Scope("head") / "head" / 0, .in = width, .out = width, .kernel = 3,
                                  .padding = 1});
  b.at(h).activation = "relu";
  h = conv2d(b, h, "Head_Conv2", {.module = Scope("head") / "head" / 2, .in = width, .out = 1, .kernel = 3,
                                  .padding = 1});
  b.at(h).activation = "sigmoid";
  return Value{h.node, {h.shape[1], h.shape[2]}};  // predicted_depth: the channel squeezed away
}

}  // namespace
}  // namespace glpn_impl

const Family& glpn_family() {
  static const Family family{"glpn", "models/glpn/modeling_glpn.py",
                             classes("GLPN", {{"ForDepthEstimation", Head::PreTraining}}), glpn_impl::build};
  return family;
}

}  // namespace neurarch::families
