#include "families/config_lists.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace neurarch::families {

namespace {

// Every integer list a config holds, read one way: what differs between keys is the smallest entry
// they allow, whether an empty list means something, how many entries are plausible and the words
// an error uses.
struct ListRule {
  std::int64_t min;
  bool empty_ok;
  std::size_t max_entries;
  const char* list_of;   ///< "a non-empty list of sizes"
  const char* entries;   ///< "positive sizes"
  const char* too_many;  ///< "stages"
};

std::vector<std::int64_t> integer_list(const Config& c, std::string_view key, const std::vector<std::int64_t>& fallback,
                                       const ListRule& rule) {
  const auto* v = c.raw({key});
  if (!v || (rule.empty_ok && v->is_null())) {
    c.record_default(key, fallback);
    return fallback;
  }
  const std::string where = fmt::format("{}: key '{}'", c.origin(), key);
  if (!v->is_array() || (!rule.empty_ok && v->empty()))
    throw Error(ErrorKind::InvalidInput, where, fmt::format("expected {}, found {}", rule.list_of, v->dump()));
  if (v->size() > rule.max_entries)
    throw Error(ErrorKind::InvalidInput, where, fmt::format("{} {} is absurd", v->size(), rule.too_many));
  std::vector<std::int64_t> out;
  for (const auto& e : *v) {
    if (!e.is_number_integer() || e.get<std::int64_t>() < rule.min || e.get<std::int64_t>() > limits::kMaxDimension)
      throw Error(ErrorKind::InvalidInput, where, fmt::format("expected {}, found {}", rule.entries, e.dump()));
    out.push_back(e.get<std::int64_t>());
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> size_list(const Config& c, std::string_view key, const std::vector<std::int64_t>& fallback) {
  return integer_list(c, key, fallback, {1, false, 64, "a non-empty list of sizes", "positive sizes", "stages"});
}

std::vector<std::int64_t> count_list(const Config& c, std::string_view key, const std::vector<std::int64_t>& fallback) {
  return integer_list(c, key, fallback,
                      {0, false, static_cast<std::size_t>(limits::kMaxLayers), "a non-empty list of counts",
                       "non-negative counts", "entries"});
}

std::vector<std::int64_t> index_list(const Config& c, std::string_view key, const std::vector<std::int64_t>& fallback) {
  return integer_list(c, key, fallback,
                      {-limits::kMaxDimension, true, static_cast<std::size_t>(limits::kMaxLayers), "a list of layer indices",
                       "integer layer indices", "entries"});
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
