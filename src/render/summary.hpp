#pragma once
// The headline sentences shared by the text and markdown renderers, so both say the same thing.
#include <string>
#include <vector>

#include "report/report.hpp"

namespace neurarch::render {

/// "Layers: 99", "Parameters: 22,056,576 derived · checkpoint 22,056,576 · delta 0 (0.000%)",
/// "Will it forward-pass: Yes", notes...
std::vector<std::string> summary_lines(const report::Report& r);

/// "error  heads-divide-hidden  Attention_0: ... — fix: ..." per finding; empty when none.
std::vector<std::string> finding_lines(const report::Report& r);

}  // namespace neurarch::render
