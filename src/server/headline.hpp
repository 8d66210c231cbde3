#pragma once
// The few figures a list or a badge shows, read from the same Report the pages render.
#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace neurarch::server {

/// shields.io endpoint format: {"schemaVersion": 1, "label", "message", "color"}, e.g.
/// "full FT 0.72 GiB · fits T4".
nlohmann::json badge_json(const report::Report& r);

/// One row of /index.json: id, type, class, parameters, layers, forward pass, batch-1 memory
/// (full and LoRA), the smallest card that fits each, and the cheapest run.
nlohmann::json index_entry(const report::Report& r);

}  // namespace neurarch::server
