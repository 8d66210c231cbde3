#include "plan/weights.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "plan/ops/schema.hpp"

namespace neurarch::plan {
namespace {
using graph::NodeType;

// PEFT's target_modules list: a module is adapted when its dotted name is a target or ends with "." and one
// (peft/tuners/tuners_utils.py, check_target_module_exists), so "q_proj" and "self_attn.q_proj" both name it.
bool targeted(const std::vector<std::string>& targets, const std::string& tensor_name) {
  const auto dot = tensor_name.rfind('.');
  const std::string_view module = std::string_view(tensor_name).substr(0, dot == std::string::npos ? 0 : dot);
  for (const auto& t : targets)
    if (module == t || (module.size() > t.size() && module.ends_with(t) && module[module.size() - t.size() - 1] == '.'))
      return true;
  return false;
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
    // The role the block declared (graph::TensorRole) says what the tensor is to its op; the node's op says
    // whether it runs as a matmul autocast casts. An idle module (stored, never run) is still the module it is: PEFT
    // wraps an idle nn.Linear and bitsandbytes quantizes it, though it never multiplies anything.
    r.idle = t.operand == graph::Operand::Idle;
    r.matmul = t.kind == graph::TensorKind::Parameter && graph::is_matmul_role(t.role) &&
               (op_schema(node.type).matmul || r.idle);
    r.head = node.type == NodeType::LMHead || node.type == NodeType::Classifier;
    r.trained = t.kind == graph::TensorKind::Parameter && !t.frozen &&
                (s.mode == Mode::Full || node.type == NodeType::Classifier);
    // PEFT's "all-linear" adapts every nn.Linear except the output layer; convolutions, bare and stacked
    // parameters (expert matrices, nn.MultiheadAttention's in_proj_weight, Gemma 3's mm_input_projection_weight)
    // are left alone: only a tensor declared TensorRole::Linear is adapted.
    const bool named = !s.lora_targets.empty() && targeted(s.lora_targets, t.name);
    // A head is adapted only when it is named (PEFT target "lm_head", litgpt's lora_head).
    r.lora_target = r.matmul && t.role == graph::TensorRole::Linear && (!r.head || named) &&
                    node.type != NodeType::PatchEmbed && (s.lora_targets.empty() || named);
    // Two-dimensional matrices are stored in 4 bits; convolutions and stacked matrices stay in 16.
    r.quantized = s.mode == Mode::QLoRA && r.matmul &&
                  (t.role == graph::TensorRole::Linear || t.role == graph::TensorRole::Matrix) &&
                  (!r.head || s.quantize_head);
    if (r.lora_target) {
      r.lora_parameters = s.lora_rank * (t.shape[0] + t.shape[1]);
      // DoRA's magnitude: one value per output feature (peft/tuners/lora/dora.py).
      if (s.dora) r.dora_parameters = t.shape[0];
      r.lora_parameters += r.dora_parameters;
    }
  }
  // PEFT refuses targets that name no module ("Target modules ... not found in the base model"); a plan that
  // adapted nothing would be a plan of a job that never starts.
  if (s.mode != Mode::Full && !s.lora_targets.empty() &&
      std::none_of(roles.begin(), roles.end(), [](const WeightRole& r) { return r.lora_target; })) {
    std::set<std::string> linears;
    for (std::size_t i = 0; i < g.tensors.size(); ++i)
      if (roles[i].matmul && g.tensors[i].role == graph::TensorRole::Linear) linears.insert(leaf_module(g.tensors[i].name));
    std::string names, known;
    // Quoted and escaped: a target is the user's text, and an error is one line.
    for (const auto& t : s.lora_targets) names += fmt::format("{}{:?}", names.empty() ? "" : ", ", t);
    for (const auto& l : linears) known += (known.empty() ? "" : ", ") + l;
    throw Error(ErrorKind::InvalidInput, "--lora-targets",
                fmt::format("{} names no linear of this model (its linears: {})", names, known.empty() ? "none" : known));
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
