// Prompt Depth Anything (models/prompt_depth_anything/modular_prompt_depth_anything.py, transformers 4.57.6 and
// 5.24): Depth Anything (depth_anything.hpp) with a low-resolution depth prompt. Every fusion layer resizes the
// [1, H, W] prompt (min-max normalised) to its map and adds prompt_depth_layer's three 3x3 convs (1 ->
// fusion_hidden_size -> fusion_hidden_size -> fusion_hidden_size, ReLU between) after residual_layer2. The graph
// runs with a prompt at the coarsest fusion map's size; the reference skips the branch without one.
#include "blocks/upsample.hpp"
#include "families/depth_anything.hpp"

namespace neurarch::families {
namespace prompt_depth_anything_impl {
namespace {

using namespace blocks;

Value build(const BuildInput& in, GraphBuilder& b) {
  const std::int64_t fusion = in.config.dim({"fusion_hidden_size"}, 64);
  Value prompt;
  auto prompt_branch = [&](GraphBuilder& g, const Value& h, const std::string& name, const Scope& layer) {
    // A low-resolution sensor depth: declared at the coarsest fusion map's size, where it is first read.
    if (prompt.node < 0) prompt = g.input({1, h.shape[1], h.shape[2]}, "pixels", "prompt_depth");
    const Scope convs = layer / "prompt_depth_layer";
    Value p = prompt;
    if (p.shape != Shape{1, h.shape[1], h.shape[2]}) p = resize(g, p, name + "_Prompt_Resize", h.shape[1], h.shape[2]);
    p = conv2d(g, p, name + "_Prompt_Conv1",
               {.module = convs / "convolution1", .in = 1, .out = fusion, .kernel = 3, .padding = 1});
    g.at(p).activation = "relu";
    p = conv2d(g, p, name + "_Prompt_Conv2",
               {.module = convs / "convolution2", .in = fusion, .out = fusion, .kernel = 3, .padding = 1});
    g.at(p).activation = "relu";
    p = conv2d(g, p, name + "_Prompt_Conv3",
               {.module = convs / "convolution3", .in = fusion, .out = fusion, .kernel = 3, .padding = 1});
    return add(g, h, p, name + "_Prompt_Add");
  };
  return depth_anything::depth_estimator(in, b, prompt_branch);
}

}  // namespace
}  // namespace prompt_depth_anything_impl

const Family& prompt_depth_anything_family() {
  static const Family family{"prompt_depth_anything", "models/prompt_depth_anything/modular_prompt_depth_anything.py",
                             {{"PromptDepthAnythingForDepthEstimation", Head::PreTraining}}, prompt_depth_anything_impl::build};
  return family;
}

}  // namespace neurarch::families
