#include "track/text_diff.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace neurarch::track {
namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

struct Op {
  char tag;  // ' ', '-', '+'
  std::size_t a, b;  // line indices (a in before, b in after)
};

// Longest common subsequence table, walked forward into an edit script.
std::vector<Op> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::uint32_t> lcs((n + 1) * (m + 1), 0);
  auto at = [&](std::size_t i, std::size_t j) -> std::uint32_t& { return lcs[i * (m + 1) + j]; };
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;) at(i, j) = a[i] == b[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
  std::vector<Op> ops;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ops.push_back({' ', i++, j++});
    } else if (i < n && (j == m || at(i + 1, j) >= at(i, j + 1))) {
      ops.push_back({'-', i++, j});  // deletions first, as diff -u prints them
    } else {
      ops.push_back({'+', i, j++});
    }
  }
  return ops;
}

}  // namespace

std::string unified_diff(const std::string& before, const std::string& after, const std::string& name,
                         std::size_t context, std::size_t max_lines) {
  const auto a = split_lines(before), b = split_lines(after);
  std::string out = fmt::format("--- a/{}\n+++ b/{}\n", name, name);
  if (a.size() > max_lines || b.size() > max_lines)
    return out + fmt::format("@@ {} lines -> {} lines; too long to diff line by line @@\n", a.size(), b.size());
  const auto ops = edit_script(a, b);
  std::size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].tag == ' ') {
      ++k;
      continue;
    }
    // A hunk: from `context` lines before this change to `context` lines after the last change
    // that is no further than 2 * context unchanged lines from the previous one.
    const std::size_t first = k >= context ? k - context : 0;
    std::size_t last = k;
    std::size_t scan = k;
    while (scan < ops.size()) {
      if (ops[scan].tag != ' ') {
        last = scan;
        ++scan;
        continue;
      }
      std::size_t run = scan;
      while (run < ops.size() && ops[run].tag == ' ') ++run;
      if (run == ops.size() || run - scan > 2 * context) break;
      scan = run;
    }
    const std::size_t end = std::min(ops.size(), last + 1 + context);
    std::size_t a_count = 0, b_count = 0;
    for (std::size_t x = first; x < end; ++x) {
      if (ops[x].tag != '+') ++a_count;
      if (ops[x].tag != '-') ++b_count;
    }
    const std::size_t a_start = a_count ? ops[first].a + 1 : ops[first].a;
    const std::size_t b_start = b_count ? ops[first].b + 1 : ops[first].b;
    out += fmt::format("@@ -{},{} +{},{} @@\n", a_start, a_count, b_start, b_count);
    for (std::size_t x = first; x < end; ++x) {
      const auto& op = ops[x];
      out += op.tag;
      out += op.tag == '+' ? b[op.b] : a[op.a];
      out += '\n';
    }
    k = end;
  }
  return out;
}

}  // namespace neurarch::track
