#include "lint/lint.hpp"

#include <algorithm>
#include <exception>
#include <set>
#include <string>

#include "lint/rule.hpp"

namespace neurarch::lint {

int severity_rank(std::string_view severity) {
  if (severity == "error") return 2;
  if (severity == "warn") return 1;
  if (severity == "info") return 0;
  return -1;
}

const std::vector<RuleInfo>& rules() {
  static const std::vector<RuleInfo> infos = [] {
    std::vector<RuleInfo> out;
    for (const auto& r : rule_table()) out.push_back(r.info);
    return out;
  }();
  return infos;
}

std::vector<report::Finding> run(const report::Report& r, const Options& o) {
  const Context c(r, o);
  std::vector<report::Finding> out;
  for (const auto& rule : rule_table()) {
    Hits hits;
    // A key the family never needed may hold a value of any type; one rule tripping over it must
    // not cost the user the rest of the report.
    try {
      hits = rule.check(c);
    } catch (const std::exception&) {
      continue;
    }
    for (auto& h : hits)
      out.push_back({std::string(rule.info.id), std::string(rule.info.severity), std::move(h.node),
                     std::move(h.message), std::move(h.fix)});
  }
  // The graph's forward failure restates what a more specific error on the same node already explains.
  std::set<std::string> explained;
  for (const auto& f : out)
    if (f.rule != "graph-forward" && f.severity == "error" && !f.node.empty()) explained.insert(f.node);
  std::erase_if(out, [&](const report::Finding& f) { return f.rule == "graph-forward" && explained.count(f.node); });
  std::stable_sort(out.begin(), out.end(), [](const report::Finding& a, const report::Finding& b) {
    return severity_rank(a.severity) > severity_rank(b.severity);
  });
  return out;
}

}  // namespace neurarch::lint
