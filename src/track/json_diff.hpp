#pragma once
// Key-level difference of two JSON documents. Nested objects are walked and named by dotted
// paths ("rope_scaling.factor"); arrays are compared whole, as config readers use them whole.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace neurarch::track {

struct KeyDiff {
  std::string path;
  std::string kind;  ///< "key-added" | "key-removed" | "key-changed"
  nlohmann::json before, after;  ///< null on the side where the key is absent
};

/// Differences in path order (object keys sorted, as nlohmann stores them).
std::vector<KeyDiff> json_key_diff(const nlohmann::json& before, const nlohmann::json& after);

}  // namespace neurarch::track
