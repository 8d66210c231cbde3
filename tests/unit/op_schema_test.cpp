// Each node type's rules are declared once, in its op schema (plan/ops/): every type has one, and every ground-truth
// graph carries the attributes its ops read. The activation width the cost model reads is the one the
// activation plan keeps (a LoRA base in fp32 runs in the dtype it was loaded in).
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "blocks/blocks.hpp"
#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/cost.hpp"
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
std::string check_node(const graph::Node& n) {
  const auto& op = plan::op_schema(n.type);
  std::vector<std::string> wrong;
  const bool attention_op = &op == &plan::attention_op() || &op == &plan::latent_attention_op();
  if (attention_op != n.attention.has_value()) wrong.push_back("attention attributes and an attention op disagree");
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
  std::string out;
  for (const auto& w : wrong) out += (out.empty() ? "" : "; ") + w;
  return out;
}

TEST(OpSchema, EveryGroundTruthGraphCarriesWhatItsOpsRead) {
  const auto cases = testing::all_cases();
  NEURARCH_REQUIRE(!cases.empty(), "../shared/groundtruth not found");
  std::set<std::string> failed_types;
  int checked = 0;
  for (const auto& c : cases) {
    if (failed_types.count(c.model_type)) continue;
    std::ifstream in(c.file);
    std::stringstream text;
    text << in.rdbuf();
    const auto j = nlohmann::json::parse(standardize_python_json(text.str()));
    std::optional<model::BuiltModel> built;
    try {
      Config config(j["config"], c.file.filename().string());
      model::BuildOptions options;
      options.class_name = c.class_name;
      built = model::build_model(config, options);
    } catch (const std::exception&) {
      continue;  // unsupported model types are the ground-truth test's business
    }
    for (const auto& n : built->graph.nodes) {
      const auto wrong = check_node(n);
      if (wrong.empty()) continue;
      ADD_FAILURE() << c.model_type << " (" << c.file.filename().string() << "), node " << n.name << ": " << wrong;
      failed_types.insert(c.model_type);
      break;
    }
    ++checked;
  }
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

}  // namespace
}  // namespace neurarch
