#include <fmt/format.h>

#include "render/render.hpp"

namespace neurarch::render {

std::string thousands(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  int count = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    if (count && count % 3 == 0) out.insert(out.begin(), ',');
    out.insert(out.begin(), *it);
    ++count;
  }
  return n < 0 ? "-" + out : out;
}

std::string shape_text(const graph::Shape& s) {
  if (s.empty()) return "scalar";
  return fmt::format("{}", fmt::join(s, " × "));
}

}  // namespace neurarch::render
