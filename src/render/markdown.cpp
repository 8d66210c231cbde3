#include <fmt/format.h>

#include "render/plan_render.hpp"
#include "render/render.hpp"
#include "render/summary.hpp"

namespace neurarch::render {
namespace {
// Markdown table cells must not contain a bare '|'.
std::string cell(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else out += ch;
  }
  return out;
}
}  // namespace

std::string markdown(const report::Report& r) {
  const auto& g = r.graph;
  std::string out = fmt::format("# {}\n\n", cell(r.model.id));
  out += fmt::format("- model_type: `{}`\n- class: `{}`\n- source: {}{}\n- input: {} {}\n\n", r.model.model_type,
                     r.model.class_name, r.model.source, r.model.revision.empty() ? "" : " @ `" + r.model.revision + "`",
                     g.input_kind, shape_text(g.input_shape));
  if (g.inputs.size() > 1) {
    for (const auto& in : g.inputs) out += fmt::format("- input `{}`: {} {}\n", in.name, in.kind, shape_text(in.shape));
    out += "\n";
  }
  out += "## Summary\n\n";
  for (const auto& line : summary_lines(r)) out += "- " + cell(line) + "\n";

  if (r.plan) out += plan_text(*r.plan, true);

  out += "\n## What the verifier says\n\n";
  auto findings = finding_lines(r);
  if (findings.empty()) out += "Nothing to report.\n";
  for (const auto& f : findings) out += "- " + cell(f) + "\n";

  out += "\n## Layers\n\n| # | Layer | Type | Output shape | Params |\n|---:|---|---|---|---:|\n";
  for (const auto& n : g.nodes)
    out += fmt::format("| {} | {} | {} | {} | {} |\n", n.index, cell(n.name), graph::node_type_name(n.type),
                       shape_text(n.out), thousands(g.node_scalars(n.index)));

  if (r.checkpoint && !r.checkpoint->exact()) {
    out += "\n## Checkpoint differences\n\n| Tensor | Ours | Checkpoint | Note |\n|---|---|---|---|\n";
    for (const auto& t : r.checkpoint->missing)
      out += fmt::format("| `{}` | {} {} | — | missing in checkpoint |\n", t.name, shape_text(t.shape), dtype_name(t.dtype));
    for (const auto& u : r.checkpoint->unexpected)
      out += fmt::format("| `{}` | — | {} {} | {} |\n", u.tensor.name, shape_text(u.tensor.shape),
                         dtype_name(u.tensor.dtype), u.explanation.empty() ? "only in checkpoint" : cell(u.explanation));
    for (const auto& m : r.checkpoint->mismatched)
      out += fmt::format("| `{}` | {} {} | {} {} | {} differs |\n", m.name, shape_text(m.ours.shape),
                         dtype_name(m.ours.dtype), shape_text(m.checkpoint.shape), dtype_name(m.checkpoint.dtype),
                         m.reason);
  }

  out += fmt::format("\n<details><summary>All {} tensors</summary>\n\n| Tensor | Shape | DType |\n|---|---|---|\n",
                     g.tensors.size());
  for (const auto& t : g.tensors)
    out += fmt::format("| `{}`{}{} | {} | {} |\n", t.name, t.saved() ? "" : " (tied to `" + t.tied_to + "`)",
                       t.frozen ? " (frozen)" : "", shape_text(t.shape), dtype_name(t.dtype));
  out += "\n</details>\n";
  return out;
}

}  // namespace neurarch::render
