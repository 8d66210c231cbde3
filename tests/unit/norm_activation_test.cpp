// An activation applied to a LayerNorm's output (GLM-4.1V's merger: GELU after post_projection_norm) keeps its
// input, at the norm's output precision, beside what the norm keeps.
#include <string>

#include <gtest/gtest.h>

#include "blocks/blocks.hpp"
#include "plan/activations.hpp"
#include "plan/weights.hpp"

namespace neurarch {
namespace {

std::int64_t saved_bytes(const graph::Graph& g, const std::string& name, const plan::Setup& s) {
  auto model = plan::saved_activations(g, s, plan::weight_roles(g, s));
  for (const auto& n : g.nodes)
    if (n.name == name) {
      std::int64_t bytes = 0;
      for (const auto& t : model.nodes.at(static_cast<std::size_t>(n.index)).saved) bytes += t.bytes(1);
      return bytes;
    }
  ADD_FAILURE() << "no node " << name;
  return 0;
}

graph::Graph normed(const std::string& activation) {
  graph::GraphBuilder b;
  auto x = b.input({16, 32}, "pixels");
  auto h = blocks::dense(b, x, "Proj", blocks::Scope("proj"), 32, 32, false);
  h = blocks::norm(b, h, "Norm", {blocks::Scope("norm")});
  b.at(h).activation = activation;
  h = blocks::dense(b, h, "Out", blocks::Scope("out"), 32, 8, false);
  return b.finish(h);
}

TEST(NormActivation, GeluAfterALayerNormKeepsTheNormedOutput) {
  plan::Setup s;  // full fine-tune, bf16 autocast: the norm runs and returns fp32
  const std::int64_t norm_only = 16 * 32 * 4 + 16 * 2 * 4;
  EXPECT_EQ(saved_bytes(normed(""), "Norm", s), norm_only);
  EXPECT_EQ(saved_bytes(normed("gelu"), "Norm", s), norm_only + 16 * 32 * 4);
}

}  // namespace
}  // namespace neurarch
