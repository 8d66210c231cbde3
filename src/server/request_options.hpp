#pragma once
// The planner's and builder's options as a client sends them: JSON keys in a POST body, or the
// same names as query parameters on GET pages (?batch=4&qlora=true). Unknown keys and bad
// values are refused with a message naming the key, never silently ignored.
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "model/build.hpp"
#include "plan/plan.hpp"

namespace neurarch::server {

struct RequestOptions {
  model::BuildOptions build;
  plan::PlanOptions plan;
  /// Canonical text of every effective option: the options half of the report cache's key.
  std::string key;
  /// Only the options that differ from the defaults, as query parameters ("" when none).
  std::string query;
  /// The same options as neurarch-trace flags (" --batch 4 --qlora"; "" when none).
  std::string cli_flags;
};

/// A client's mistake in the options: the message names the key. Answered with 400.
struct OptionError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// A message that echoes a client's bytes, as one line of UTF-8: control characters escaped as in JSON
/// ("lora_ra\\nk"), bytes that are not UTF-8 as U+FFFD (a query string is not validated on the way in).
std::string one_line(const std::string& message);

RequestOptions default_request_options();
/// Reads the option keys of a JSON object; keys in `ignore` (e.g. "model", "config") are skipped.
RequestOptions options_from_json(const nlohmann::json& body, const std::set<std::string>& ignore);
/// The same keys as query parameters: numbers and booleans as text, lists comma-separated.
RequestOptions options_from_query(const std::multimap<std::string, std::string>& params);

}  // namespace neurarch::server
