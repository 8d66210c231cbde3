#pragma once
// The plan section of each format; the renderers in render.hpp call these.
#include <string>

#include <nlohmann/json.hpp>

#include "plan/plan.hpp"

namespace neurarch::render {

nlohmann::json plan_json(const plan::Plan& p);
/// Lines of the plan section for text (markdown = false) or markdown.
std::string plan_text(const plan::Plan& p, bool markdown);
/// 1610612736 -> "1.50 GiB"
std::string gib(std::int64_t bytes);

}  // namespace neurarch::render
