#include "track/lfs.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <fmt/format.h>

#include "core/error.hpp"

namespace neurarch::track {
namespace {
constexpr std::string_view kVersionPrefix = "version https://git-lfs.github.com/spec/";
constexpr std::string_view kLegacyVersionPrefix = "version https://hawser.github.com/spec/";

bool lower_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); });
}
}  // namespace

bool looks_like_lfs_pointer(std::string_view text) {
  return text.size() <= kMaxLfsPointerBytes && (text.starts_with(kVersionPrefix) || text.starts_with(kLegacyVersionPrefix));
}

LfsPointer parse_lfs_pointer(std::string_view text, const std::string& where) {
  auto fail = [&](int line, const std::string& why) -> LfsPointer {
    throw Error(ErrorKind::InvalidInput, fmt::format("{}:{}", where, line), "not a valid Git LFS pointer: " + why);
  };
  if (text.size() > kMaxLfsPointerBytes) return fail(1, fmt::format("{} bytes, pointers are under {}", text.size(), kMaxLfsPointerBytes));
  if (!text.empty() && text.back() != '\n') return fail(1, "the last line does not end with a newline");
  LfsPointer p;
  bool have_oid = false, have_size = false;
  std::string previous_key;
  int line_no = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    const std::size_t space = line.find(' ');
    if (space == std::string_view::npos || space == 0) return fail(line_no, "expected 'key value'");
    const std::string key(line.substr(0, space));
    const std::string_view value = line.substr(space + 1);
    if (line_no == 1) {
      if (key != "version") return fail(1, "the first line must be the version");
      continue;
    }
    if (key == "version") return fail(line_no, "version must come first and only once");
    if (!previous_key.empty() && key <= previous_key) return fail(line_no, "keys must be sorted and unique");
    previous_key = key;
    if (key == "oid") {
      if (!value.starts_with("sha256:") || value.size() != 7 + 64 || !lower_hex(value.substr(7)))
        return fail(line_no, "oid must be sha256: and 64 lowercase hex digits");
      p.oid = std::string(value);
      have_oid = true;
    } else if (key == "size") {
      std::int64_t size = -1;
      const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), size);
      if (ec != std::errc() || ptr != value.data() + value.size() || size < 0 || value.empty())
        return fail(line_no, "size must be a non-negative integer");
      p.size = size;
      have_size = true;
    }
  }
  if (line_no == 0) return fail(1, "empty");
  if (!have_oid) return fail(line_no, "no oid line");
  if (!have_size) return fail(line_no, "no size line");
  return p;
}

}  // namespace neurarch::track
