#pragma once
// Pure functions of the report. JSON is the canonical, versioned contract (neurarch.report/v1);
// text and markdown are for people and must say nothing the JSON does not hold.
#include <string>

#include <nlohmann/json.hpp>

#include "report/report.hpp"

namespace neurarch::render {

struct TextOptions {
  bool list_tensors = false;  ///< the full tensor table (long for big models)
};

nlohmann::json to_json(const report::Report& r);
std::string json(const report::Report& r);
std::string text(const report::Report& r, const TextOptions& options = {});
std::string markdown(const report::Report& r);

/// 22056576 -> "22,056,576"
std::string thousands(std::int64_t n);
/// {1370, 384} -> "1370 × 384"; {} -> "scalar"
std::string shape_text(const graph::Shape& s);

}  // namespace neurarch::render
