#include "families/backbone_stages.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace neurarch::families {

std::vector<std::int64_t> backbone_stages(const Config& bc, std::int64_t stages, std::vector<std::int64_t> fallback) {
  std::vector<std::int64_t> out;
  if (const auto* v = bc.raw({"out_indices"}); v && v->is_array()) {
    for (const auto& e : *v) {
      if (!e.is_number_integer())
        throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'out_indices'", bc.origin()), "expected integers");
      std::int64_t i = e.get<std::int64_t>();
      if (i < 0) i += stages + 1;
      if (i < 0 || i > stages)
        throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'out_indices'", bc.origin()),
                    fmt::format("stage {} is outside stem + {} stages", e.get<std::int64_t>(), stages));
      out.push_back(i);
    }
  } else if (const auto* f = bc.raw({"out_features"}); f && f->is_array()) {
    for (const auto& e : *f) {
      const std::string name = e.is_string() ? e.get<std::string>() : "";
      std::int64_t i = -1;
      if (name == "stem") {
        i = 0;
      } else if (name.size() > 5 && name.starts_with("stage") &&
                 std::all_of(name.begin() + 5, name.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
        i = std::stoll(name.substr(5));
      }
      if (i < 0 || i > stages)
        throw Error(ErrorKind::InvalidInput, fmt::format("{}: key 'out_features'", bc.origin()),
                    fmt::format("'{}' is not a stage of stem + {} stages", name, stages));
      out.push_back(i);
    }
  } else {
    out = std::move(fallback);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace neurarch::families
