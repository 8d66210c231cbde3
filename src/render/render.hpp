#pragma once
// Pure functions of the report. JSON is the canonical, versioned contract (neurarch.report/v1);
// text and markdown are for people and must say nothing the JSON does not hold.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// One revision in a model's change history (the change tracker supplies them).
struct ChangeRow {
  std::string date;      ///< ISO 8601
  std::string revision;  ///< commit hash or ref
  std::string summary;   ///< what changed, one line
};

struct HtmlOptions {
  /// nullopt: no change tracker is attached, and the section is left out.
  std::optional<std::vector<ChangeRow>> changes;
  /// The command line that reproduces this report, shown with a copy button; "" for none.
  std::string command;
};

/// The report as an HTML fragment (one <article class="neurarch">) with server-rendered SVG
/// charts, no script and no inline style; html_stylesheet() styles it (a server serves it as a
/// file, a notebook's _repr_html_ inlines it). Without JavaScript every section still reads.
std::string html(const report::Report& r, const HtmlOptions& options = {});
std::string_view html_stylesheet();
/// Escapes & < > " ' for text and attribute values.
std::string html_escape(std::string_view text);

/// The architecture diagram (render/diagram.hpp) of the report's graph as a standalone SVG document,
/// with the plan's overlay when the report has a plan.
std::string diagram(const report::Report& r);

/// 22056576 -> "22,056,576"
std::string thousands(std::int64_t n);
/// {1370, 384} -> "1370 × 384"; {} -> "scalar"
std::string shape_text(const graph::Shape& s);

}  // namespace neurarch::render
