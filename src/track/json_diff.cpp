#include "track/json_diff.hpp"

namespace neurarch::track {
namespace {
using nlohmann::json;

std::string join(const std::string& prefix, const std::string& key) { return prefix.empty() ? key : prefix + "." + key; }

void walk(const json& a, const json& b, const std::string& prefix, std::vector<KeyDiff>& out) {
  if (a.is_object() && b.is_object()) {
    auto ia = a.begin();
    auto ib = b.begin();
    // Both sides iterate in key order, so one merge pass finds every difference.
    while (ia != a.end() || ib != b.end()) {
      if (ib == b.end() || (ia != a.end() && ia.key() < ib.key())) {
        out.push_back({join(prefix, ia.key()), "key-removed", ia.value(), nullptr});
        ++ia;
      } else if (ia == a.end() || ib.key() < ia.key()) {
        out.push_back({join(prefix, ib.key()), "key-added", nullptr, ib.value()});
        ++ib;
      } else {
        walk(ia.value(), ib.value(), join(prefix, ia.key()), out);
        ++ia;
        ++ib;
      }
    }
    return;
  }
  if (a != b) out.push_back({prefix, "key-changed", a, b});
}

}  // namespace

std::vector<KeyDiff> json_key_diff(const json& before, const json& after) {
  std::vector<KeyDiff> out;
  walk(before, after, "", out);
  return out;
}

}  // namespace neurarch::track
