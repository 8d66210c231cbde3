#pragma once
// Pieces of the HTML renderer shared between its files (render/html*.cpp).
#include <cstdint>
#include <string>

#include "plan/plan.hpp"

namespace neurarch::render::html_parts {

/// Stacked horizontal bars: one per (mode, phase), each term a segment with a <title>.
std::string phase_chart_svg(const plan::Plan& p);
/// Device memory against batch (log2 axis) for full and LoRA, with each card's limit drawn.
std::string batch_chart_svg(const plan::Plan& p);
/// "1.23 GiB" or "512 MiB" for small figures, so tiny models do not all read 0.00 GiB.
std::string bytes_text(std::int64_t bytes);

}  // namespace neurarch::render::html_parts
