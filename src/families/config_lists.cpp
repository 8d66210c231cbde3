#include "families/config_lists.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace neurarch::families {

std::vector<std::int64_t> size_list(const Config& c, std::string_view key, const std::vector<std::int64_t>& fallback) {
  const auto* v = c.raw({key});
  if (!v) {
    c.record_default(key, fallback);
    return fallback;
  }
  const std::string where = fmt::format("{}: key '{}'", c.origin(), key);
  if (!v->is_array() || v->empty())
    throw Error(ErrorKind::InvalidInput, where, fmt::format("expected a non-empty list of sizes, found {}", v->dump()));
  if (v->size() > 64) throw Error(ErrorKind::InvalidInput, where, fmt::format("{} stages is absurd", v->size()));
  std::vector<std::int64_t> out;
  for (const auto& e : *v) {
    if (!e.is_number_integer() || e.get<std::int64_t>() <= 0 || e.get<std::int64_t>() > limits::kMaxDimension)
      throw Error(ErrorKind::InvalidInput, where, fmt::format("expected positive sizes, found {}", e.dump()));
    out.push_back(e.get<std::int64_t>());
  }
  return out;
}

void require_length(const Config& c, std::string_view key, const std::vector<std::int64_t>& list, std::size_t count) {
  if (list.size() != count)
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                fmt::format("has {} entries for {} stages", list.size(), count));
}

std::vector<bool> bool_list(const Config& c, std::string_view key, std::vector<bool> fallback) {
  const auto* v = c.raw({key});
  if (!v || v->is_null()) {
    c.record_default(key, fallback);
    return fallback;
  }
  std::vector<bool> out;
  if (v->is_array())
    for (const auto& e : *v) {
      if (!e.is_boolean()) break;
      out.push_back(e.get<bool>());
    }
  if (!v->is_array() || out.size() != v->size())
    throw Error(ErrorKind::InvalidInput, fmt::format("{}: key '{}'", c.origin(), key),
                fmt::format("expected a list of booleans, found {}", v->dump()));
  return out;
}

}  // namespace neurarch::families
