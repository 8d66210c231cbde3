// Each node type's rules are declared once, in its op schema (plan/ops/): every type has one, every ground-truth
// graph carries the attributes its ops read, and a weight declared as a matmul sits on an op that runs it as one
// (else the cost model, autocast and LoRA would all skip it), unless the block declared it idle (stored, never run).
// The activation width the cost model reads is the one the activation plan keeps (a LoRA base in fp32 runs in the
// dtype it was loaded in).
#include <gtest/gtest.h>

#include <algorithm>

#include "blocks/blocks.hpp"
#include "plan/activations.hpp"
#include "plan/cost.hpp"
#include "plan/weights.hpp"
#include "plan/ops/ops.hpp"
#include "plan/setup_rules.hpp"
#include "support/groundtruth.hpp"

namespace neurarch {
namespace {

using graph::NodeType;

TEST(OpSchema, EveryNodeTypeDeclaresWhatItKeeps) {
  for (int t = 0; t < graph::kNodeTypeCount; ++t)
    EXPECT_NE(plan::op_schema(static_cast<NodeType>(t)).saved, nullptr) << "node type " << t;
}

// "" when the node carries what its op's rules dereference, and its work attribute sits on the op that costs it.
std::string check_node(const graph::Graph& g, const graph::Node& n) {
  const auto& op = plan::op_schema(n.type);
  std::vector<std::string> wrong;
  const bool runs_attention = &op == &plan::attention_op || &op == &plan::latent_attention_op;
  if (runs_attention != n.attention.has_value()) wrong.push_back("attention attributes and an attention op disagree");
  if ((n.type == NodeType::LatentAttention) != n.latent.has_value()) wrong.push_back("MLA attributes off MLA");
  if ((n.type == NodeType::StateSpaceMixer) != n.ssm.has_value()) wrong.push_back("SSM attributes off a mixer");
  if ((n.type == NodeType::GatedDeltaNet) != n.linear_attention.has_value())
    wrong.push_back("delta-rule attributes off a Gated DeltaNet");
  if ((n.type == NodeType::RecurrentMixer) != n.recurrent.has_value())
    wrong.push_back("recurrent attributes off a recurrent mixer");
  if ((n.type == NodeType::DeformableAttention) != n.deformable.has_value())
    wrong.push_back("deformable attributes off deformable attention");
  if (n.type == NodeType::Conv1d && !n.conv) wrong.push_back("a Conv1d without its attributes");
  if ((n.type == NodeType::FeedForward || n.type == NodeType::GatedFeedForward ||
       (n.type == NodeType::MixtureOfExperts && !n.moe)) &&
      !n.feed_forward)
    wrong.push_back("an MLP without its attributes");
  for (int t : n.tensors) {
    const auto& spec = g.tensors[static_cast<std::size_t>(t)];
    if (spec.kind != graph::TensorKind::Parameter || !graph::is_matmul_role(spec.role) ||
        spec.operand == graph::Operand::Idle)
      continue;
    if (!op.matmul) wrong.push_back(spec.name + " is declared a matmul weight on an op that runs none");
    // A lookup holds tables (TensorRole::Embedding); the only matmul it runs is a bare projection of its rows.
    if (&op == &plan::lookup_op && spec.role != graph::TensorRole::Matrix)
      wrong.push_back(spec.name + " is a table declared as a matmul weight");
  }
  std::string out;
  for (const auto& w : wrong) out += (out.empty() ? "" : "; ") + w;
  return out;
}

TEST(OpSchema, EveryGroundTruthGraphCarriesWhatItsOpsRead) {
  NEURARCH_REQUIRE(!testing::all_cases().empty(), "../shared/groundtruth not found");
  const int checked = testing::check_every_case([](const graph::Graph& g) -> std::string {
    for (const auto& n : g.nodes)
      if (const auto wrong = check_node(g, n); !wrong.empty()) return "node " + n.name + ": " + wrong;
    return "";
  });
  EXPECT_GT(checked, 500);
}

// A dense layer over 4 tokens, 8 -> 16: the cost model's memory traffic is its input and output at the width the
// activation plan keeps them.
TEST(OpSchema, CostReadsActivationsAtTheWidthThePlanKeeps) {
  graph::GraphBuilder b;
  auto x = b.input({4}, "tokens");
  x = blocks::token_embedding(b, x, "Embedding", graph::Scope("embed"), 10, 8);
  auto d = b.node(NodeType::Linear, "Dense", {4, 16}, {x}, graph::Scope("dense"));
  blocks::linear_tensors(b, d, graph::Scope("dense"), 8, 16, false);
  const auto g = b.finish(d);
  for (const auto mode : {plan::Mode::Full, plan::Mode::LoRA}) {
    plan::Setup s;
    s.precision = plan::Precision::Fp32;
    s.mode = mode;
    const auto costs = plan::node_costs(g, s);
    // fp32 full fine-tune: 4 bytes; fp32 LoRA: the frozen base runs in the 16-bit dtype it was loaded in.
    const int bytes = mode == plan::Mode::Full ? 4 : 2;
    EXPECT_EQ(plan::compute_bytes(s), bytes);
    EXPECT_DOUBLE_EQ(costs.at(static_cast<std::size_t>(d.node)).activation_bytes, (4.0 * 8 + 4.0 * 16) * bytes);
  }
}

TEST(OpSchema, ANormDropsItsOutputWhereTheBlockSaysSo) {
  // BERT's embeddings drop the normed sum: the mask is the LayerNorm node's, in the normed output's dtype (fp32
  // under autocast; the CPU keeps noise of that dtype, CUDA a bool).
  graph::GraphBuilder b;
  auto x = b.input({4}, "tokens");
  x = blocks::token_embedding(b, x, "Embedding", graph::Scope("embed"), 10, 8);
  x = blocks::norm(b, x, "Embedding_LayerNorm", {graph::Scope("embed.LayerNorm")});
  b.at(x).dropout = 0.1;
  const auto g = b.finish(x);
  plan::Setup s;  // amp-bf16
  for (const int mask : {0, 1}) {
    s.dropout_mask_bytes = mask;
    const auto acts = plan::saved_activations(g, s, plan::weight_roles(g, s));
    const auto& saved = acts.nodes.at(static_cast<std::size_t>(x.node)).saved;
    const auto it = std::find_if(saved.begin(), saved.end(), [](const auto& t) { return t.what == "dropout mask"; });
    ASSERT_NE(it, saved.end());
    EXPECT_EQ(it->elements, 4 * 8);
    EXPECT_EQ(it->bytes_per_element, mask ? 1 : 4);
  }
}

}  // namespace
}  // namespace neurarch
