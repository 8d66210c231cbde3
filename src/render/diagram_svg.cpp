// Paints a laid-out Diagram as SVG. Presentation attributes only: the server's Content-Security-Policy
// forbids inline style, and a notebook or a file viewer shows the same picture without a stylesheet.
#include <algorithm>

#include <fmt/format.h>

#include "render/diagram.hpp"
#include "render/render.hpp"

namespace neurarch::render {
namespace {

// White (nothing kept) to a warm red (the most kept), in steps a reader can tell apart.
std::string heat_fill(double heat) {
  if (heat < 0) return "#f6f8fb";
  const double t = std::clamp(heat, 0.0, 1.0);
  const int r = 255, g = static_cast<int>(255 - t * (255 - 112)), b = static_cast<int>(255 - t * (255 - 92));
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

std::string num(double v) { return fmt::format("{:.1f}", v); }

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "; ") + l;
  return out;
}

void text_lines(std::string& svg, const std::vector<std::string>& lines, double x, double y, bool first_bold) {
  for (std::size_t i = 0; i < lines.size(); ++i)
    svg += fmt::format("<text x=\"{}\" y=\"{}\"{}>{}</text>", num(x),
                       num(y + DiagramMetrics::kPadY + DiagramMetrics::kFontSize + static_cast<double>(i) * DiagramMetrics::kLineHeight),
                       i == 0 && first_bold ? " font-weight=\"bold\"" : "", html_escape(lines[i]));
}

}  // namespace

std::string diagram_svg(const Diagram& d, const std::string& title) {
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"diagram\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" aria-labelledby=\"diagram-title\" font-family=\"DejaVu Sans Mono, Menlo, Consolas, monospace\" "
      "font-size=\"{2}\">"
      "<title id=\"diagram-title\">{3}</title>"
      "<defs><marker id=\"arrow\" viewBox=\"0 0 8 8\" refX=\"8\" refY=\"4\" markerWidth=\"8\" markerHeight=\"8\" "
      "orient=\"auto\"><path d=\"M0,0 L8,4 L0,8 z\" fill=\"#5b6b7f\"/></marker></defs>"
      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>",
      num(d.width), num(d.height), static_cast<int>(DiagramMetrics::kFontSize), html_escape(title));

  for (const auto& c : d.columns) {
    svg += fmt::format("<g class=\"column-title\"><title>{0}</title>", html_escape(c.title));
    text_lines(svg, {c.title}, c.rect.x + DiagramMetrics::kPadX, c.rect.y, true);
    svg += "</g>";
  }
  for (const auto& grp : d.groups) {
    svg += fmt::format(
        "<g class=\"group\" data-count=\"{}\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"8\" "
        "fill=\"{}\" stroke=\"#7a8ca3\" stroke-dasharray=\"5 3\"/>",
        grp.count, html_escape(joined(grp.lines)), num(grp.rect.x), num(grp.rect.y), num(grp.rect.w), num(grp.rect.h),
        grp.heat < 0 ? "#eef2f7" : heat_fill(grp.heat * 0.25));
    text_lines(svg, grp.lines, grp.rect.x + DiagramMetrics::kPadX, grp.rect.y, true);
    svg += "</g>";
  }
  // Edges under the boxes: a chain arrow runs bottom-centre to top-centre; a cross-column edge leaves
  // the source's side, turns in the gap between the columns and enters the target's side.
  for (const auto& e : d.edges) {
    const auto& from = d.boxes[static_cast<std::size_t>(e.from)];
    const auto& to = d.boxes[static_cast<std::size_t>(e.to)];
    const auto& a = from.rect;
    const auto& b = to.rect;
    if (!e.cross) {
      // Into or out of a group the arrow meets its border, so it never runs through the group's heading.
      const double y1 = from.group >= 0 && from.group != to.group
                            ? d.groups[static_cast<std::size_t>(from.group)].rect.y + d.groups[static_cast<std::size_t>(from.group)].rect.h
                            : a.y + a.h;
      const double y2 = to.group >= 0 && from.group != to.group ? d.groups[static_cast<std::size_t>(to.group)].rect.y : b.y;
      svg += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#5b6b7f\" marker-end=\"url(#arrow)\"/>",
                         num(a.x + a.w / 2), num(y1), num(b.x + b.w / 2), num(y2));
      continue;
    }
    // Across columns the edge turns in the gap beside the source's column, where no box stands.
    const auto& source_column = d.columns[static_cast<std::size_t>(from.column)].rect;
    const bool right = to.column > from.column;
    const double x1 = right ? a.x + a.w : a.x, y1 = a.y + a.h / 2;
    const double x2 = right ? b.x : b.x + b.w, y2 = b.y + b.h / 2;
    const double mid = right ? source_column.x + source_column.w + 24 : source_column.x - 24;
    svg += fmt::format(
        "<g class=\"cross\"><title>{0}</title><path d=\"M{1},{2} H{3} V{4} H{5}\" fill=\"none\" stroke=\"#2f6fb0\" "
        "stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/></g>",
        html_escape(e.label), num(x1), num(y1), num(mid), num(y2), num(x2));
  }
  for (std::size_t i = 0; i < d.boxes.size(); ++i) {
    const auto& b = d.boxes[i];
    svg += fmt::format(
        "<g class=\"box\" data-node=\"{}\"><title>{}</title><rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" rx=\"4\" "
        "fill=\"{}\" stroke=\"{}\" stroke-width=\"{}\"/>",
        b.node, html_escape(joined(b.lines)), num(b.rect.x), num(b.rect.y), num(b.rect.w), num(b.rect.h), heat_fill(b.heat),
        b.peak ? "#b3261e" : "#4a5a6e", b.peak ? "2.5" : "1");
    text_lines(svg, b.lines, b.rect.x + DiagramMetrics::kPadX, b.rect.y, true);
    if (b.peak)
      svg += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#b3261e\" font-weight=\"bold\">◆</text>", num(b.rect.x + b.rect.w - 14),
                         num(b.rect.y + DiagramMetrics::kPadY + DiagramMetrics::kFontSize));
    svg += "</g>";
  }
  double y = d.height - 12 - static_cast<double>(d.legend.size() - (d.legend.empty() ? 0 : 1)) * DiagramMetrics::kLineHeight;
  for (const auto& l : d.legend) {
    svg += fmt::format("<text class=\"legend\" x=\"16\" y=\"{}\">{}</text>", num(y), html_escape(l));
    y += DiagramMetrics::kLineHeight;
  }
  return svg + "</svg>\n";
}

std::string diagram(const report::Report& r) {
  const Diagram d = layout_diagram(r.graph, r.plan ? &*r.plan : nullptr);
  return diagram_svg(d, fmt::format("{} ({}): architecture", r.model.id.empty() ? r.model.model_type : r.model.id,
                                    r.model.class_name));
}

}  // namespace neurarch::render
