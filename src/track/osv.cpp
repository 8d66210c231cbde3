#include "track/osv.hpp"

#include <ctime>

#include <fmt/format.h>

#include "track/digest.hpp"

namespace neurarch::track {
namespace {
using nlohmann::json;

bool is_hub_url(const std::string& url) {
  return url.starts_with("https://huggingface.co/") || url.starts_with("http://huggingface.co/") ||
         url.starts_with("https://hf.co/");
}

// OSV bounds the summary; cut on a character boundary, never inside a UTF-8 sequence.
std::string truncate_utf8(std::string s, std::size_t n) {
  if (s.size() <= n) return s;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  s.resize(n);
  return s;
}

std::string fenced(const json& v) { return "```json\n" + v.dump(2) + "\n```\n"; }

}  // namespace

std::string rfc3339(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string web_url(const std::string& repo, const std::string& url) {
  if (is_hub_url(url) || url.starts_with("file://") || url.starts_with("/") || url.empty())
    return "https://huggingface.co/" + repo;
  return url;
}

std::string advisory_id(const std::string& repo, const std::string& commit, const Change& change) {
  Fnv1a h;
  for (const std::string* part : {&repo, &commit, &change.category, &change.kind, &change.subject}) h.add(*part);
  return "NEURARCH-" + h.hex();
}

json osv_advisory(const AdvisoryContext& ctx, const Change& change) {
  const std::string when = rfc3339(ctx.time);
  const std::string page = web_url(ctx.repo, ctx.url);
  std::string details = fmt::format(
      "{}\n\nIntroduced by commit {} (\"{}\"), whose parent is {}. Loading `{}` at this commit or later behaves "
      "differently from the parent revision; pin `revision=\"{}\"` to keep the old behaviour until you have "
      "checked your pipeline.\n",
      change.summary, ctx.commit, ctx.title, ctx.parent.empty() ? "none" : ctx.parent, ctx.repo,
      ctx.parent.empty() ? ctx.commit : ctx.parent);
  if (!change.before.is_null()) details += "\nBefore:\n" + fenced(change.before);
  if (!change.after.is_null()) details += "\nAfter:\n" + fenced(change.after);
  if (!change.detail.empty()) details += "\n```diff\n" + change.detail + "```\n";

  // A commit page exists only where the history was read from the Hub itself; a local clone's
  // commits may never have been pushed there.
  json references = json::array();
  if (is_hub_url(ctx.url)) references.push_back({{"type", "WEB"}, {"url", fmt::format("{}/commit/{}", page, ctx.commit)}});
  references.push_back({{"type", "PACKAGE"}, {"url", page}});
  return {
      {"schema_version", kOsvSchemaVersion},
      {"id", advisory_id(ctx.repo, ctx.commit, change)},
      {"modified", when},
      {"published", when},
      {"summary", truncate_utf8(fmt::format("{}: {}", ctx.repo, change.summary), 500)},
      {"details", details},
      {"affected",
       json::array({{{"package", {{"ecosystem", "Hugging Face"}, {"name", ctx.repo}, {"purl", "pkg:huggingface/" + ctx.repo}}},
                     {"ranges", json::array({{{"type", "GIT"},
                                              {"repo", ctx.url},
                                              {"events", json::array({{{"introduced", ctx.commit}}})}}})}}})},
      {"references", references},
      {"database_specific",
       {{"source", "neurarch-trace"},
        {"category", change.category},
        {"kind", change.kind},
        {"subject", change.subject},
        {"severity", severity_name(change.severity)},
        {"before", change.before},
        {"after", change.after},
        {"commit", ctx.commit},
        {"parent", ctx.parent}}},
  };
}

}  // namespace neurarch::track
