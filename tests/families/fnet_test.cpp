// FNet's graph facts the tensor lists do not show: a Fourier mixer where BERT attends, the embedding dropout after
// the projection, a pooler in every class, and the note on the TPU Fourier path.
#include <gtest/gtest.h>

#include "support/family_graph.hpp"

namespace neurarch {
namespace {

using graph::NodeType;
using graph::Shape;
using testing::build_graph;
using testing::find_node;

Config small(const std::string& extra = "") {
  return Config::parse(R"({"model_type": "fnet", "num_hidden_layers": 2)" + extra + "}", "config.json");
}

TEST(FNetGraph, FourierMixerInPlaceOfAttention) {
  const auto g = build_graph(small(), "FNetModel");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  std::vector<std::string> names;
  for (const auto& n : g.nodes)
    if (n.block == 0) names.push_back(n.name);
  EXPECT_EQ(names, (std::vector<std::string>{"Fourier_Mixer_0", "Add_0_1", "LayerNorm_0_1", "FFN_0", "Add_0_2",
                                             "LayerNorm_0_2"}));
  int mixers = 0;
  for (const auto& n : g.nodes) {
    EXPECT_FALSE(n.attention.has_value()) << n.name;
    if (n.type == NodeType::FourierMixer) ++mixers;
  }
  EXPECT_EQ(mixers, 2);
  EXPECT_EQ(find_node(g, "Fourier_Mixer_1")->out, (Shape{512, 768}));
  // The mixer's output is not dropped; the FFN's is (hidden_dropout_prob).
  EXPECT_EQ(find_node(g, "Fourier_Mixer_0")->dropout, 0.0);
  EXPECT_EQ(find_node(g, "FFN_0")->dropout, 0.1);
}

TEST(FNetGraph, EmbeddingDropoutFollowsTheProjection) {
  const auto g = build_graph(small(), "FNetModel");
  EXPECT_EQ(find_node(g, "Embedding_LayerNorm")->dropout, 0.0);
  EXPECT_EQ(find_node(g, "Embedding_Projection")->dropout, 0.1);
}

TEST(FNetHeads, EveryClassKeepsThePooler) {
  for (const std::string cls : {"FNetForMaskedLM", "FNetForTokenClassification", "FNetForQuestionAnswering"})
    EXPECT_NE(build_graph(small(), cls).find_tensor("fnet.pooler.dense.weight"), nullptr) << cls;
}

TEST(FNetGraph, TpuFourierPathIsNamedNotPlanned) {
  const auto g = build_graph(small(R"(, "use_tpu_fourier_optimizations": true)"), "FNetModel");
  ASSERT_TRUE(g.forward.ok) << g.forward.reason;
  bool named = false;
  for (const auto& note : g.notes) named = named || note.find("dft_mat_hidden [768, 768]") != std::string::npos;
  EXPECT_TRUE(named);
  EXPECT_TRUE(build_graph(small(), "FNetModel").notes.empty());
  // Beyond 4096 positions the reference runs axis-wise FFTs whatever SciPy says: nothing to note.
  EXPECT_TRUE(build_graph(small(R"(, "use_tpu_fourier_optimizations": true, "max_position_embeddings": 8192)"),
                          "FNetModel", 512)
                  .notes.empty());
}

TEST(FNetForward, SequenceBeyondThePositionTableFails) {
  const auto g = build_graph(small(), "FNetModel", 513);
  ASSERT_FALSE(g.forward.ok);
  EXPECT_EQ(g.nodes.at(static_cast<std::size_t>(g.forward.node)).name, "Position_Embedding");
}

}  // namespace
}  // namespace neurarch
