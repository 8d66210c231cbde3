#include "render/summary.hpp"

#include <fmt/format.h>

#include "render/render.hpp"

namespace neurarch::render {

std::vector<std::string> summary_lines(const report::Report& r) {
  const auto& g = r.graph;
  std::vector<std::string> lines;
  std::size_t saved = 0, buffers = 0, tied = 0;
  for (const auto& t : g.tensors) {
    if (!t.saved())
      ++tied;
    else if (t.kind == graph::TensorKind::Buffer)
      ++buffers;
    else
      ++saved;
  }
  lines.push_back(fmt::format("Layers: {}", g.layer_count()));
  lines.push_back(fmt::format("Tensors: {} parameters, {} persistent buffers, {} tied aliases not saved", saved, buffers,
                              tied));
  std::string params = fmt::format("Parameters: {} derived", thousands(r.derived_scalars()));
  if (r.checkpoint) {
    auto pct = r.delta_percent();
    params += fmt::format(" · checkpoint {} ({} file{}) · delta {}{}", thousands(r.checkpoint->checkpoint_scalars),
                          r.checkpoint->files.size(), r.checkpoint->files.size() == 1 ? "" : "s", thousands(*r.delta()),
                          pct ? fmt::format(" ({:+.3f}%)", *pct) : "");
    params += r.checkpoint->exact() ? " · tensors match" : " · tensors differ (see below)";
  } else {
    params += " · no checkpoint read";
  }
  lines.push_back(params);
  if (const auto frozen = g.frozen_parameter_count(); frozen > 0)
    lines.push_back(fmt::format("Frozen by the reference (requires_grad False): {} of them; no gradient or optimizer "
                                "state",
                                thousands(frozen)));
  if (g.has_experts()) {
    const graph::MoEAttrs* first = nullptr;
    int moe_layers = 0;
    for (const auto& n : g.nodes)
      if (n.moe) {
        if (!first) first = &*n.moe;
        ++moe_layers;
      }
    const bool dense = first->dispatched > first->top_k;
    // Some picks may be identity experts (LongCat-Flash): dispatched is then the real experts reached on average.
    const std::string runs = first->dispatched > 0 && first->dispatched < first->top_k
                                 ? fmt::format("picks {} experts, on average {} of its {} real routed ones",
                                               first->top_k, first->dispatched, first->experts)
                                 : fmt::format("runs {} of {} routed experts", first->top_k, first->experts);
    lines.push_back(fmt::format("Active parameters per token: {} of {} trainable ({} expert layer{}, each token {}{}); "
                                "memory holds every expert, {}",
                                thousands(g.active_parameter_count()), thousands(g.parameter_count()), moe_layers,
                                moe_layers == 1 ? "" : "s", runs,
                                first->shared_intermediate > 0 ? " plus the shared expert" : "",
                                dense ? "and the reference still computes all of them for every token (the "
                                        "unchosen scaled by zero): compute and activations are sized for that"
                                      : "compute and activations follow the routing"));
  }
  if (r.hub && r.hub->safetensors_total)
    lines.push_back(fmt::format("Hub's own count (safetensors.total): {} · ours differs by {}",
                                thousands(*r.hub->safetensors_total),
                                thousands(r.derived_scalars() - *r.hub->safetensors_total)));
  if (g.forward.ok)
    lines.emplace_back("Will it forward-pass: Yes");
  else
    lines.push_back(fmt::format("Will it forward-pass: No — {}: {}", g.nodes[static_cast<std::size_t>(g.forward.node)].name,
                                g.forward.reason));
  if (r.checkpoint)
    for (const auto& n : r.checkpoint->notes) lines.push_back("Checkpoint: " + n);
  for (const auto& n : g.notes) lines.push_back("Note: " + n);
  for (const auto& n : r.notes) lines.push_back("Note: " + n);
  return lines;
}

std::vector<std::string> finding_lines(const report::Report& r) {
  std::vector<std::string> lines;
  for (const auto& f : r.findings)
    lines.push_back(fmt::format("{} [{}] {}{} — fix: {}", f.severity, f.rule, f.node.empty() ? "" : f.node + ": ",
                                f.message, f.fix));
  return lines;
}

}  // namespace neurarch::render
