#include "plan/weights.hpp"

#include <algorithm>

namespace neurarch::plan {
namespace {
using graph::NodeType;

bool uses_matmul(NodeType t) {
  switch (t) {
    case NodeType::MultiHeadAttention:
    case NodeType::GroupedQueryAttention:
    case NodeType::MultiQueryAttention:
    case NodeType::FeedForward:
    case NodeType::GatedFeedForward:
    case NodeType::MixtureOfExperts:
    case NodeType::LatentAttention:
    case NodeType::StateSpaceMixer:
    case NodeType::GatedDeltaNet:
    case NodeType::RecurrentMixer:
    case NodeType::DeformableAttention:
    case NodeType::Linear:
    case NodeType::Pooler:
    case NodeType::Classifier:
    case NodeType::LMHead:
    case NodeType::PatchEmbed:
    case NodeType::Conv1d:
    case NodeType::Conv2d:
      return true;
    default:
      return false;
  }
}
}  // namespace

std::string leaf_module(const std::string& name) {
  auto last = name.rfind('.');
  if (last == std::string::npos) return name;
  auto prev = name.rfind('.', last - 1);
  return name.substr(prev == std::string::npos ? 0 : prev + 1, last - (prev == std::string::npos ? 0 : prev + 1));
}

std::vector<WeightRole> weight_roles(const graph::Graph& g, const Setup& s) {
  std::vector<WeightRole> roles(g.tensors.size());
  for (std::size_t i = 0; i < g.tensors.size(); ++i) {
    const auto& t = g.tensors[i];
    const auto& node = g.nodes[static_cast<std::size_t>(t.node)];
    auto& r = roles[i];
    r.tensor = static_cast<int>(i);
    // Routed experts' matrices are matmul weights whatever their layout: stacked [experts, out, in]
    // (GraniteMoE's ParallelExperts) or bare parameters (DBRX's w1/v1/w2), one matmul per expert.
    // Stacked expert biases ([experts, width], GPT-OSS's gate_up_proj_bias) are added, not multiplied.
    const bool expert_matrix = node.moe && t.shape.size() >= 2 && !t.name.ends_with("bias") &&
                               std::find(node.moe->routed_tensors.begin(), node.moe->routed_tensors.end(),
                                         static_cast<int>(i)) != node.moe->routed_tensors.end();
    // Linear [out, in], Conv1d [out, in / groups, k] and Conv2d [out, in / groups, kh, kw] weights; a
    // weight-normed convolution multiplies by weight_g * weight_v / |weight_v|: weight_v is its matrix.
    bool is_weight = t.kind == graph::TensorKind::Parameter &&
                     (((t.name.ends_with("weight") || t.name.ends_with("weight_v")) && t.shape.size() >= 2 &&
                       t.shape.size() <= 4) ||
                      expert_matrix);
    r.matmul = is_weight && uses_matmul(node.type);
    r.head = node.type == NodeType::LMHead || node.type == NodeType::Classifier;
    r.trained = t.kind == graph::TensorKind::Parameter && !t.frozen &&
                (s.mode == Mode::Full || node.type == NodeType::Classifier);
    // PEFT's "all-linear" adapts every nn.Linear except the output layer; convolutions are left alone.
    // Only nn.Linear modules (a `.weight` of rank 2) are adapted: not stacked or bare parameters (expert
    // matrices, nn.MultiheadAttention's in_proj_weight, Gemma 3's mm_input_projection_weight).
    const bool named = !s.lora_targets.empty() && std::find(s.lora_targets.begin(), s.lora_targets.end(),
                                                            leaf_module(t.name)) != s.lora_targets.end();
    // A head is adapted only when it is named (PEFT target "lm_head", litgpt's lora_head).
    r.lora_target = r.matmul && (!r.head || named) && t.shape.size() == 2 && t.name.ends_with(".weight") &&
                    node.type != NodeType::PatchEmbed && (s.lora_targets.empty() || named);
    r.quantized = s.mode == Mode::QLoRA && r.matmul && (!r.head || s.quantize_head) && t.shape.size() == 2;
    if (r.lora_target) {
      r.lora_parameters = s.lora_rank * (t.shape[0] + t.shape[1]);
      // DoRA's magnitude: one value per output feature (peft/tuners/lora/dora.py).
      if (s.dora) r.dora_parameters = t.shape[0];
      r.lora_parameters += r.dora_parameters;
    }
  }
  return roles;
}

std::vector<bool> recorded_by_autograd(const graph::Graph& g) {
  std::vector<bool> recorded(g.nodes.size(), false);
  for (const auto& n : g.nodes) {
    bool r = false;
    for (int i : n.inputs) r = r || recorded[static_cast<std::size_t>(i)];
    for (int t : n.tensors) {
      const auto& spec = g.tensors[static_cast<std::size_t>(t)];
      r = r || (spec.kind == graph::TensorKind::Parameter && !spec.frozen);
    }
    recorded[static_cast<std::size_t>(n.index)] = r;
  }
  return recorded;
}

}  // namespace neurarch::plan
