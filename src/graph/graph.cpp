#include "graph/graph.hpp"

#include <algorithm>
#include <array>

namespace neurarch::graph {
namespace {
constexpr std::array<std::string_view, kNodeTypeCount> kNodeTypeNames{
    "Input",          "Patch Embed",   "Learned Pos Embed", "Embedding",
    "LayerNorm",      "RMSNorm",       "Multi-Head Attention", "Grouped-Query Attention",
    "Multi-Query Attention", "Feed Forward", "Gated Feed Forward", "Mixture of Experts",
    "LayerScale",     "Add",           "Linear",            "Pooler",
    "LM Head",        "Classifier",    "Output",
    "Latent Attention", "State Space Mixer", "Conv1d", "Relative Position Bias",
    "Contrastive Logits", "Conv2d", "BatchNorm", "Pool",
    "Gated DeltaNet", "Recurrent Mixer", "Deformable Attention", "Fourier Mixer",
};
static_assert(static_cast<int>(NodeType::FourierMixer) + 1 == kNodeTypeCount,
              "name table out of step with NodeType");
}  // namespace

std::string_view node_type_name(NodeType t) { return kNodeTypeNames[static_cast<std::size_t>(t)]; }

std::string_view recurrent_cell_name(RecurrentCell c) {
  switch (c) {
    case RecurrentCell::RgLru: return "RG-LRU";
    case RecurrentCell::Wkv: return "WKV";
    case RecurrentCell::Mlstm: return "mLSTM";
    case RecurrentCell::Lightning: return "Lightning Attention";
  }
  return "?";
}

std::int64_t TensorSpec::scalars() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::int64_t Graph::saved_scalars() const {
  std::int64_t total = 0;
  for (const auto& t : tensors)
    if (t.saved()) total += t.scalars();
  return total;
}

std::int64_t Graph::parameter_count() const {
  std::int64_t total = 0;
  for (const auto& t : tensors)
    if (t.saved() && t.kind == TensorKind::Parameter) total += t.scalars();
  return total;
}

std::int64_t Graph::frozen_parameter_count() const {
  std::int64_t total = 0;
  for (const auto& t : tensors)
    if (t.saved() && t.kind == TensorKind::Parameter && t.frozen) total += t.scalars();
  return total;
}

std::int64_t Graph::active_parameter_count() const {
  std::int64_t skipped = 0;
  for (const auto& n : nodes) {
    if (!n.moe || n.moe->experts <= 0) continue;
    std::int64_t routed = 0;
    for (int i : n.moe->routed_tensors) {
      const auto& t = tensors[static_cast<std::size_t>(i)];
      if (t.saved() && t.kind == TensorKind::Parameter) routed += t.scalars();
    }
    // A router that also picks identity experts (dispatched < top_k) reaches fewer real ones; one that repeats
    // every token into every expert (dispatched > top_k, Llama 4) still counts top_k as active.
    const std::int64_t used = n.moe->dispatched > 0 ? std::min(n.moe->dispatched, n.moe->top_k) : n.moe->top_k;
    const std::int64_t idle = std::max<std::int64_t>(n.moe->experts - used, 0);
    skipped += routed / n.moe->experts * idle;  // the routed experts are identical in size
  }
  return parameter_count() - skipped;
}

bool Graph::has_experts() const {
  for (const auto& n : nodes)
    if (n.moe) return true;
  return false;
}

std::int64_t Graph::node_scalars(int node) const {
  std::int64_t total = 0;
  for (int i : nodes.at(static_cast<std::size_t>(node)).tensors)
    if (tensors[static_cast<std::size_t>(i)].saved()) total += tensors[static_cast<std::size_t>(i)].scalars();
  return total;
}

int Graph::layer_count() const {
  int n = 0;
  for (const auto& node : nodes)
    if (node.type != NodeType::Input && node.type != NodeType::Output) ++n;
  return n;
}

const TensorSpec* Graph::find_tensor(std::string_view name) const {
  for (const auto& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const GraphInput* Graph::input_at(int node) const {
  for (const auto& in : inputs)
    if (in.node == node) return &in;
  return nullptr;
}

}  // namespace neurarch::graph
