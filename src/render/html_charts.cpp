#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "render/html_parts.hpp"
#include "render/render.hpp"

namespace neurarch::render::html_parts {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// Colour-blind-safe (Okabe–Ito) first, then muted extras for rarer terms.
constexpr const char* kPalette[] = {"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00",
                                    "#F0E442", "#7f7f7f", "#8c564b", "#17becf", "#bcbd22", "#393b79"};

std::string readable_term(const std::string& key) {
  std::string out = key;
  std::replace(out.begin(), out.end(), '_', ' ');
  return out;
}

std::string readable_phase(const std::string& phase) {
  if (phase == "forward_end") return "forward end";
  if (phase == "optimizer_step") return "optimizer step";
  return readable_term(phase);
}

// A round step so that the axis has 4–8 ticks.
double nice_step(double max_value, int ticks) {
  const double raw = max_value / ticks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * magnitude) return m * magnitude;
  return 10 * magnitude;
}

std::string gib_tick(double gib_value) {
  return gib_value >= 10 || gib_value == std::floor(gib_value) ? fmt::format("{:.0f}", gib_value)
                                                                : fmt::format("{:.1f}", gib_value);
}

}  // namespace

std::string bytes_text(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  if (b < 1024.0 * 1024 * 1024) return fmt::format("{:.0f} MiB", b / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", b / kGiB);
}

std::string phase_chart_svg(const plan::Plan& p) {
  struct Bar {
    std::string label;
    const plan::PhaseMemory* phase;
  };
  std::vector<Bar> bars;
  const std::string lora_name = plan::mode_label(p.lora.mode);
  for (const auto& ph : p.full.phases) bars.push_back({"Full · " + readable_phase(ph.phase), &ph});
  for (const auto& ph : p.lora.phases) bars.push_back({lora_name + " · " + readable_phase(ph.phase), &ph});
  std::int64_t max_bytes = 1;
  std::vector<std::string> term_order;  // colour by first appearance, the same in every bar
  for (const auto& b : bars) {
    max_bytes = std::max(max_bytes, b.phase->allocated);
    for (const auto& t : b.phase->terms)
      if (t.bytes > 0 && std::find(term_order.begin(), term_order.end(), t.name) == term_order.end())
        term_order.push_back(t.name);
  }
  std::map<std::string, std::string> colour;
  for (std::size_t i = 0; i < term_order.size(); ++i) colour[term_order[i]] = kPalette[i % std::size(kPalette)];

  const int label_w = 170, plot_w = 470, right_pad = 90, row_h = 26, top = 10;
  const int legend_cols = 3, legend_row_h = 18;
  const int legend_rows = static_cast<int>((term_order.size() + legend_cols - 1) / legend_cols);
  const int axis_y = top + static_cast<int>(bars.size()) * row_h + 4;
  const int height = axis_y + 30 + legend_rows * legend_row_h + 10;
  const int width = label_w + plot_w + right_pad;
  const double max_gib = static_cast<double>(max_bytes) / kGiB;
  const double step = nice_step(max_gib, 5);
  const double axis_max = std::ceil(max_gib / step) * step;
  auto x_of = [&](double gib_value) { return label_w + plot_w * gib_value / axis_max; };

  std::string svg = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-labelledby=\"phase-chart-title\" "
      "xmlns=\"http://www.w3.org/2000/svg\"><title id=\"phase-chart-title\">Allocated memory per training phase, "
      "by term</title>",
      width, height);
  for (double v = 0; v <= axis_max + step / 2; v += step) {
    const double x = x_of(v);
    svg += fmt::format("<line x1=\"{:.1f}\" y1=\"{}\" x2=\"{:.1f}\" y2=\"{}\" class=\"grid\"/>", x, top - 4, x, axis_y);
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>", x, axis_y + 14,
                       gib_tick(v));
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis-label\" text-anchor=\"middle\">GiB allocated</text>",
                     label_w + plot_w / 2, axis_y + 28);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const auto& b = bars[i];
    const int y = top + static_cast<int>(i) * row_h;
    const bool peak = (i < p.full.phases.size() ? p.full.peak_phase : p.lora.peak_phase) == b.phase->phase;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"bar-label{}\" text-anchor=\"end\">{}</text>", label_w - 8,
                       y + row_h / 2 + 4, peak ? " peak" : "", html_escape(b.label));
    double offset = 0;
    for (const auto& t : b.phase->terms) {
      if (t.bytes <= 0) continue;
      const double w = static_cast<double>(t.bytes) / kGiB;
      svg += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"><title>{}: {} ({})</title></rect>",
          x_of(offset), y + 3, std::max(0.0, x_of(offset + w) - x_of(offset)), row_h - 8, colour[t.name],
          html_escape(readable_term(t.name)), bytes_text(t.bytes), html_escape(b.label));
      offset += w;
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"bar-value\">{}{}</text>", x_of(offset) + 6,
                       y + row_h / 2 + 4, bytes_text(b.phase->allocated), peak ? " ▲ peak" : "");
  }
  for (std::size_t i = 0; i < term_order.size(); ++i) {
    const int col = static_cast<int>(i) % legend_cols, row = static_cast<int>(i) / legend_cols;
    const int x = 20 + col * ((width - 20) / legend_cols), y = axis_y + 42 + row * legend_row_h;
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"11\" height=\"11\" fill=\"{}\"/>", x, y - 10, colour[term_order[i]]);
    svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"legend\">{}</text>", x + 16, y, html_escape(readable_term(term_order[i])));
  }
  return svg + "</svg>";
}

std::string batch_chart_svg(const plan::Plan& p) {
  if (p.batch_curve.empty() || p.cards.empty()) return {};
  const int left = 56, plot_w = 520, right = 180, top = 14, plot_h = 280, bottom = 44;
  const int width = left + plot_w + right, height = top + plot_h + bottom;

  // Card limits, merged where they sit within 4% of each other so their labels stay readable.
  struct Limit {
    double gib_value;
    std::string names;
  };
  std::vector<std::pair<double, std::string>> raw;
  for (const auto& c : p.cards) raw.emplace_back(static_cast<double>(c.usable_bytes) / kGiB, c.card);
  std::sort(raw.begin(), raw.end());
  std::vector<Limit> limits;
  for (const auto& [v, name] : raw) {
    if (!limits.empty() && v <= limits.back().gib_value * 1.04)
      limits.back().names += " · " + name;
    else
      limits.push_back({v, name});
  }
  const double largest_card = limits.back().gib_value;
  double curve_max = 0;
  for (const auto& b : p.batch_curve)
    curve_max = std::max(curve_max, static_cast<double>(std::max(b.full_device_bytes, b.lora_device_bytes)) / kGiB);
  const double y_max_raw = std::min(curve_max, largest_card * 1.15);
  const double step = nice_step(std::max(y_max_raw, largest_card * 1.02), 6);
  const double y_max = std::ceil(std::max(y_max_raw, largest_card * 1.02) / step) * step;
  const double x_max = std::log2(static_cast<double>(p.batch_curve.back().batch));
  auto x_of = [&](std::int64_t batch) {
    return left + (x_max > 0 ? plot_w * std::log2(static_cast<double>(batch)) / x_max : plot_w / 2.0);
  };
  auto y_of = [&](double gib_value) { return top + plot_h - plot_h * gib_value / y_max; };

  std::string svg = fmt::format(
      "<svg class=\"chart\" viewBox=\"0 0 {} {}\" role=\"img\" aria-labelledby=\"batch-chart-title\" "
      "xmlns=\"http://www.w3.org/2000/svg\"><title id=\"batch-chart-title\">Device memory against batch size, with "
      "each card's usable memory</title><defs><clipPath id=\"plot-area\"><rect x=\"{}\" y=\"{}\" width=\"{}\" "
      "height=\"{}\"/></clipPath></defs>",
      width, height, left, top, plot_w, plot_h);
  for (double v = 0; v <= y_max + step / 2; v += step) {
    svg += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"grid\"/>", left, y_of(v),
                       left + plot_w, y_of(v));
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\" text-anchor=\"end\">{}</text>", left - 6, y_of(v) + 4,
                       gib_tick(v));
  }
  for (const auto& b : p.batch_curve)
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>", x_of(b.batch),
                       top + plot_h + 16, b.batch);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis-label\" text-anchor=\"middle\">batch size (log scale)</text>",
                     left + plot_w / 2, top + plot_h + 36);
  svg += fmt::format(
      "<text x=\"14\" y=\"{}\" class=\"axis-label\" text-anchor=\"middle\" transform=\"rotate(-90 14 {})\">GiB on "
      "the card</text>",
      top + plot_h / 2, top + plot_h / 2);
  // Labels climb out of each other's way (limits are in ascending order, so upwards on screen).
  double previous_label_y = 1e9;
  for (const auto& l : limits) {
    const double y = y_of(l.gib_value);
    const double label_y = std::min(y + 4, previous_label_y - 13);
    previous_label_y = label_y;
    svg += fmt::format("<line x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" class=\"limit\"><title>{}: {} usable</title></line>",
                       left, y, left + plot_w, y, html_escape(l.names), fmt::format("{:.1f} GiB", l.gib_value));
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"limit-label\">{}</text>", left + plot_w + 6, label_y,
                       html_escape(l.names));
  }
  auto series = [&](bool full, const char* css_class, const std::string& name) {
    std::string points;
    for (const auto& b : p.batch_curve)
      points += fmt::format("{:.1f},{:.1f} ", x_of(b.batch),
                            y_of(static_cast<double>(full ? b.full_device_bytes : b.lora_device_bytes) / kGiB));
    std::string out = fmt::format("<g clip-path=\"url(#plot-area)\"><polyline class=\"{}\" points=\"{}\"/>", css_class, points);
    for (const auto& b : p.batch_curve) {
      const auto bytes = full ? b.full_device_bytes : b.lora_device_bytes;
      out += fmt::format("<circle class=\"{}-dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\"><title>{}, batch {}: {}</title></circle>",
                         css_class, x_of(b.batch), y_of(static_cast<double>(bytes) / kGiB), html_escape(name), b.batch,
                         bytes_text(bytes));
    }
    return out + "</g>";
  };
  const std::string lora_name = plan::mode_label(p.lora.mode);
  svg += series(true, "series-full", "Full fine-tune");
  svg += series(false, "series-lora", lora_name);
  svg += fmt::format(
      "<g class=\"legend\"><line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" class=\"series-full\"/><text x=\"{3}\" "
      "y=\"{4}\">Full fine-tune</text><line x1=\"{5}\" y1=\"{1}\" x2=\"{6}\" y2=\"{1}\" class=\"series-lora\"/><text "
      "x=\"{7}\" y=\"{4}\">{8}</text></g>",
      left + 10, top + 10, left + 34, left + 40, top + 14, left + 150, left + 174, left + 180, lora_name);
  return svg + "</svg>";
}

}  // namespace neurarch::render::html_parts
