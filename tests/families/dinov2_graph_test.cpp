// The reference page's facts for facebook/dinov2-small, checked on the graph itself: node and layer
// counts, per-block shapes, readable node names, the published checkpoint total, and that DINOv2's
// interpolated positions let another image size run.
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/shared_data.hpp"

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch {
namespace {

namespace fs = std::filesystem;

std::optional<Config> dinov2_small() {
  fs::path p = fs::path(NEURARCH_SOURCE_DIR) / ".." / "shared" / "corpus" / "configs" / "facebook--dinov2-small.json";
  if (!fs::is_regular_file(p)) return std::nullopt;
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return Config::parse(text.str(), p.filename().string());
}

bool has_node(const graph::Graph& g, const std::string& name) {
  for (const auto& n : g.nodes)
    if (n.name == name) return true;
  return false;
}

TEST(Dinov2Graph, SmallAtItsDefaultSize) {
  auto config = dinov2_small();
  NEURARCH_REQUIRE(config, "../shared/corpus/configs/facebook--dinov2-small.json not found");
  auto built = model::build_model(*config);
  const auto& g = built.graph;
  EXPECT_EQ(built.class_name, "Dinov2Model");
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 518, 518}));
  EXPECT_EQ(g.nodes.size(), 101u);
  EXPECT_EQ(g.layer_count(), 99);
  int block_nodes = 0;
  for (const auto& n : g.nodes) {
    if (n.block < 0) continue;
    ++block_nodes;
    EXPECT_EQ(n.out, (graph::Shape{1370, 384})) << n.name;
  }
  EXPECT_EQ(block_nodes, 12 * 8);
  for (const char* name : {"Attention_3", "FFN_3", "LayerScale_3_1", "Final_LayerNorm"})
    EXPECT_TRUE(has_node(g, name)) << name;
  EXPECT_EQ(g.saved_scalars(), 22'056'576);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

TEST(Dinov2Graph, SmallAt224StillRuns) {
  auto config = dinov2_small();
  NEURARCH_REQUIRE(config, "../shared/corpus/configs/facebook--dinov2-small.json not found");
  model::BuildOptions options;
  options.image_size = 224;
  auto built = model::build_model(*config, options);
  const auto& g = built.graph;
  EXPECT_EQ(g.input_shape, (graph::Shape{3, 224, 224}));
  for (const auto& n : g.nodes) {
    if (n.block >= 0) {
      EXPECT_EQ(n.out, (graph::Shape{257, 384})) << n.name;
    }
  }
  // The position table keeps its trained size; only the activations shrink.
  EXPECT_EQ(g.saved_scalars(), 22'056'576);
  EXPECT_TRUE(g.forward.ok) << g.forward.reason;
}

}  // namespace
}  // namespace neurarch
