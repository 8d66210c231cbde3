#pragma once
// One rule = its RuleInfo and one check function. The check returns hits (node, message, fix);
// run() stamps them with the rule's id and severity, so a rule cannot misreport either.
#include <string>
#include <vector>

#include "lint/context.hpp"
#include "lint/lint.hpp"

namespace neurarch::lint {

struct Hit {
  std::string node;     ///< graph node name, "" for the config as a whole
  std::string message;  ///< names the key or node and its value
  std::string fix;      ///< a concrete change that removes the finding
};
using Hits = std::vector<Hit>;
using Check = Hits (*)(const Context&);

struct Rule {
  RuleInfo info;
  Check check;
};

/// THE rule table (rule_table.cpp).
const std::vector<Rule>& rule_table();

}  // namespace neurarch::lint
