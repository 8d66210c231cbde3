#include "track/views.hpp"

#include <fmt/format.h>

#include "track/osv.hpp"

namespace neurarch::track {
namespace {
using nlohmann::json;

json change_entry(const StoredChange& c) {
  json j = to_json(c.change);
  j["advisory"] = c.advisory_id.empty() ? json(nullptr) : json(c.advisory_id);
  return j;
}

std::string date_of(std::int64_t seconds) { return rfc3339(seconds).substr(0, 10); }

std::string escape_xml(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters even escaped; they carry nothing a reader needs.
        if (c < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') break;
        out += ch;
    }
  }
  return out;
}

bool shown(const json& change, bool breaking_only) { return !breaking_only || change.at("breaking").get<bool>(); }

}  // namespace

std::string escape_html(const std::string& text) { return escape_xml(text); }

std::string escape_markdown(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '\\': case '`': case '*': case '_': case '[': case ']': case '<': case '>': case '|': case '#': case '~':
        out += '\\';
        out += ch;
        break;
      case '\n': out += "<br>"; break;
      case '\r': break;
      default: out += ch;
    }
  }
  return out;
}

std::optional<json> history_json(Store& store, const std::string& repo) {
  const auto model = store.model(repo);
  if (!model) return std::nullopt;
  json revisions = json::array();
  for (const auto& h : store.history(model->id)) {
    json problems = json::array();
    for (const auto& p : h.problems) problems.push_back({{"file", p.file}, {"message", p.message}});
    json changes = json::array();
    for (const auto& c : h.changes) changes.push_back(change_entry(c));
    revisions.push_back({{"commit", h.commit},
                         {"parent", h.parent},
                         {"time", rfc3339(h.time)},
                         {"author", h.author},
                         {"title", h.title},
                         {"problems", problems},
                         {"changes", changes}});
  }
  return json{{"schema", kHistorySchema}, {"model", model->repo},         {"url", model->url},
              {"source", model->source},  {"tip", model->tip},            {"revisions", revisions}};
}

std::string history_text(const json& h, bool breaking_only) {
  std::size_t breaking = 0;
  for (const auto& r : h.at("revisions"))
    for (const auto& c : r.at("changes")) breaking += c.at("breaking").get<bool>() ? 1 : 0;
  std::string out = fmt::format("{}: {} revisions from {}, {} breaking change{}\n", h.at("model").get<std::string>(),
                                h.at("revisions").size(), h.at("url").get<std::string>(), breaking, breaking == 1 ? "" : "s");
  for (const auto& r : h.at("revisions")) {
    std::string block;
    for (const auto& c : r.at("changes")) {
      if (!shown(c, breaking_only)) continue;
      block += fmt::format("    {:<8} {:<13} {}", c.at("severity").get<std::string>(), c.at("category").get<std::string>(),
                           c.at("summary").get<std::string>());
      if (!c.at("advisory").is_null()) block += fmt::format("  [{}]", c.at("advisory").get<std::string>());
      block += "\n";
    }
    for (const auto& p : r.at("problems")) {
      const std::string file = p.at("file").get<std::string>();
      block += fmt::format("    problem  {}{}\n", file.empty() ? "" : file + ": ", p.at("message").get<std::string>());
    }
    if (breaking_only && block.empty()) continue;
    const std::string commit = r.at("commit").get<std::string>();
    out += fmt::format("  {} {} {}{}\n", r.at("time").get<std::string>().substr(0, 10), commit.substr(0, 12),
                       r.at("title").get<std::string>(), r.at("parent").get<std::string>().empty() ? " (first revision)" : "");
    out += block;
  }
  return out;
}

std::string history_markdown(const json& h, bool breaking_only) {
  std::string out = fmt::format("## Change history of `{}`\n\nRead from {}; tip `{}`.\n\n", h.at("model").get<std::string>(),
                                escape_markdown(h.at("url").get<std::string>()), h.at("tip").get<std::string>());
  out += "| Date | Commit | Severity | Category | Change | Advisory |\n|---|---|---|---|---|---|\n";
  std::string diffs, problems;
  for (const auto& r : h.at("revisions")) {
    const std::string date = r.at("time").get<std::string>().substr(0, 10);
    const std::string commit = r.at("commit").get<std::string>().substr(0, 12);
    for (const auto& c : r.at("changes")) {
      if (!shown(c, breaking_only)) continue;
      const std::string severity = c.at("severity").get<std::string>();
      out += fmt::format("| {} | `{}` | {} | {} | {} | {} |\n", date, commit, severity == "breaking" ? "**breaking**" : severity,
                         c.at("category").get<std::string>(), escape_markdown(c.at("summary").get<std::string>()),
                         c.at("advisory").is_null() ? "" : c.at("advisory").get<std::string>());
      if (!c.at("detail").get<std::string>().empty())
        diffs += fmt::format("\n### `{}` {}\n\n```diff\n{}```\n", commit, escape_markdown(c.at("summary").get<std::string>()),
                             c.at("detail").get<std::string>());
    }
    for (const auto& p : r.at("problems")) {
      const std::string file = p.at("file").get<std::string>();
      problems += fmt::format("- `{}` {}{}\n", commit, file.empty() ? "" : "`" + file + "`: ",
                              escape_markdown(p.at("message").get<std::string>()));
    }
  }
  if (!problems.empty()) out += "\n### Problems\n\n" + problems;
  return out + diffs;
}

std::optional<json> advisory_json(Store& store, const std::string& id) {
  const auto text = store.advisory(id);
  if (!text) return std::nullopt;
  return json::parse(*text);
}

json feed_json(Store& store, const FeedOptions& options) {
  json changes = json::array();
  for (const auto& c : store.recent_changes(options.limit, options.breaking_only)) {
    json j = change_entry(c);
    j["model"] = c.repo;
    j["commit"] = c.commit;
    j["parent"] = c.parent;
    j["time"] = rfc3339(c.time);
    j["title"] = c.title;
    j["link"] = fmt::format("{}/models/{}/changes", options.base_url, c.repo);
    changes.push_back(std::move(j));
  }
  return {{"schema", kFeedSchema}, {"changes", changes}};
}

std::string feed_atom(Store& store, const FeedOptions& options) {
  const auto changes = store.recent_changes(options.limit, options.breaking_only);
  const std::string updated = changes.empty() ? rfc3339(0) : rfc3339(changes.front().time);
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">\n";
  out += fmt::format("  <title>{}</title>\n", options.breaking_only ? "neurarch: breaking model changes" : "neurarch: model changes");
  out += fmt::format("  <id>{}/changes</id>\n", escape_xml(options.base_url));
  out += fmt::format("  <link rel=\"self\" type=\"application/atom+xml\" href=\"{}/changes\"/>\n", escape_xml(options.base_url));
  out += fmt::format("  <updated>{}</updated>\n  <author><name>neurarch-trace</name></author>\n", updated);
  for (const auto& c : changes) {
    const std::string id = advisory_id(c.repo, c.commit, c.change).substr(9);  // the fingerprint without the prefix
    const std::string link = c.advisory_id.empty() ? fmt::format("{}/models/{}/changes", options.base_url, c.repo)
                                                   : fmt::format("{}/api/v1/advisories/{}", options.base_url, c.advisory_id);
    out += "  <entry>\n";
    out += fmt::format("    <title>{}</title>\n", escape_xml(c.repo + ": " + c.change.summary));
    out += fmt::format("    <id>urn:neurarch:change:{}</id>\n", id);
    out += fmt::format("    <updated>{}</updated>\n", rfc3339(c.time));
    out += fmt::format("    <link href=\"{}\"/>\n", escape_xml(link));
    out += fmt::format("    <category term=\"{}\"/>\n    <category term=\"{}\"/>\n", severity_name(c.change.severity),
                       escape_xml(c.change.category));
    out += fmt::format("    <summary>{} (commit {}: {})</summary>\n", escape_xml(c.change.summary), c.commit.substr(0, 12),
                       escape_xml(c.title));
    out += "  </entry>\n";
  }
  return out + "</feed>\n";
}

std::optional<json> badge_json(Store& store, const std::string& repo, std::int64_t now) {
  const auto model = store.model(repo);
  if (!model) return std::nullopt;
  const auto last = store.last_breaking(model->id);
  json badge = {{"schemaVersion", 1}, {"label", "last breaking change"}};
  if (!last) {
    badge["message"] = "none";
    badge["color"] = "brightgreen";
    return badge;
  }
  const std::int64_t days = (now - last->time) / 86400;
  badge["message"] = fmt::format("{} {}", date_of(last->time), last->change.kind);
  badge["color"] = days < 7 ? "red" : days < 30 ? "orange" : days < 180 ? "yellow" : "yellowgreen";
  return badge;
}

std::optional<std::vector<HistoryRow>> history_rows(Store& store, const std::string& repo) {
  const auto model = store.model(repo);
  if (!model) return std::nullopt;
  std::vector<HistoryRow> rows;
  const auto history = store.history(model->id);
  for (auto it = history.rbegin(); it != history.rend(); ++it)
    for (const auto& c : it->changes) {
      HistoryRow row;
      row.date = date_of(c.time);
      row.commit = c.commit;
      row.commit_short = c.commit.substr(0, 12);
      row.category = c.change.category;
      row.kind = c.change.kind;
      row.severity = severity_name(c.change.severity);
      row.breaking = c.change.breaking();
      row.advisory_id = c.advisory_id;
      row.summary_html = escape_html(c.change.summary);
      row.summary_markdown = escape_markdown(c.change.summary);
      row.title_html = escape_html(c.title);
      row.title_markdown = escape_markdown(c.title);
      rows.push_back(std::move(row));
    }
  return rows;
}

}  // namespace neurarch::track
