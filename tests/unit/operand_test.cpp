// Every matmul weight states which activation it multiplies (graph::Operand), where its block declares it; the
// activation rules and the cost model select weights by it, never by declaration order. This holds the
// declarations of every ground-truth case to what those rules read: an op that closes with a projection
// declares exactly one Inner weight, only cross-attention and deformable attention read a Memory, only MLA has
// latents, only a mixture of experts has routed weights.
#include <map>

#include <fmt/format.h>
#include <gtest/gtest.h>


#include "plan/weights.hpp"
#include "support/groundtruth.hpp"

namespace neurarch {
namespace {

using graph::NodeType;
using graph::Operand;

bool closes_with_projection(const graph::Node& n) {
  switch (n.type) {
    case NodeType::MultiHeadAttention:
    case NodeType::GroupedQueryAttention:
    case NodeType::MultiQueryAttention:
    case NodeType::LatentAttention:
    case NodeType::DeformableAttention:
    case NodeType::FeedForward:
    case NodeType::GatedFeedForward:
    case NodeType::RecurrentMixer:
    case NodeType::StateSpaceMixer:
    case NodeType::GatedDeltaNet:
      return true;
    case NodeType::MixtureOfExperts:
      return !n.moe;  // a dense MLP under an MoE node's name (a dense layer of an MoE model)
    default:
      return false;
  }
}

// Whether every node that reads `n` is a projection of its own (the op hands its heads to a separate Linear or
// convolution node: Aimv2's pooling head, Gemma 3n's audio attention, SqueezeBERT's post-attention conv1d).
bool projected_by_its_readers(const graph::Graph& g, const graph::Node& n) {
  bool read = false;
  for (const auto& m : g.nodes)
    for (int i : m.inputs)
      if (i == n.index) {
        read = true;
        if (m.type != NodeType::Linear && m.type != NodeType::Conv1d && m.type != NodeType::Conv2d) return false;
      }
  return read;
}

// "" when the node's operands are what the rules read; else what is wrong.
std::string check_node(const graph::Graph& g, const graph::Node& n, const std::vector<plan::WeightRole>& roles) {
  std::map<Operand, int> count;
  int matmuls = 0;
  for (int t : n.tensors) {
    if (!roles[static_cast<std::size_t>(t)].matmul) continue;
    ++matmuls;
    ++count[g.tensors[static_cast<std::size_t>(t)].operand];
  }
  if (matmuls == 0) return "";
  const bool cross = (n.attention && n.attention->kv_input >= 0) || n.deformable;
  const bool routed_moe = n.moe && n.type == NodeType::MixtureOfExperts;
  std::vector<std::string> wrong;
  if (count[Operand::Inner] > 1) wrong.push_back(fmt::format("{} Inner weights (one closing projection)", count[Operand::Inner]));
  // D-FINE's deformable attention has no output projection: the one op allowed none.
  if (closes_with_projection(n) && count[Operand::Inner] == 0 && !projected_by_its_readers(g, n) &&
      !(n.deformable && count[Operand::Memory] == 0))
    wrong.push_back("no Inner weight, and its readers are no projection");
  if (routed_moe && count[Operand::Inner] != (n.moe->shared_intermediate > 0 ? 1 : 0))
    wrong.push_back(fmt::format("{} Inner weights (one per shared expert's down projection)", count[Operand::Inner]));
  if (!closes_with_projection(n) && !n.moe && count[Operand::Inner] > 0)
    wrong.push_back("an Inner weight on an op that reads no inner activation");
  if (!cross && count[Operand::Memory] > 0) wrong.push_back("a Memory weight without a second input");
  if (n.type != NodeType::LatentAttention && (count[Operand::QueryLatent] || count[Operand::KvLatent]))
    wrong.push_back("latent weights outside MLA");
  if (n.type == NodeType::LatentAttention && count[Operand::KvLatent] != 1) wrong.push_back("MLA without kv_b_proj");
  if (!n.moe && (count[Operand::Routed] || count[Operand::RoutedInner])) wrong.push_back("routed weights without experts");
  if (routed_moe && (count[Operand::Routed] == 0 || count[Operand::RoutedInner] == 0))
    wrong.push_back("experts without routed input and down projections");
  std::string out;
  for (const auto& w : wrong) out += (out.empty() ? "" : "; ") + w;
  return out;
}

TEST(Operand, EveryGroundTruthCaseDeclaresWhatItsMatmulsRead) {
  NEURARCH_REQUIRE(!testing::all_cases().empty(), "../shared/groundtruth not found");
  plan::Setup s;
  s.mode = plan::Mode::Full;
  const int checked = testing::check_every_case([&](const graph::Graph& g) -> std::string {
    const auto roles = plan::weight_roles(g, s);
    for (const auto& n : g.nodes)
      if (const auto wrong = check_node(g, n, roles); !wrong.empty()) return "node " + n.name + ": " + wrong;
    return "";
  });
  EXPECT_GT(checked, 500);
}

}  // namespace
}  // namespace neurarch
