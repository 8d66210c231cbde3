#pragma once
// What the server mounts and the CLI prints, as pure functions of the store: no HTTP here.
//   GET /models/{org}/{name}/changes  -> history_json
//   GET /api/v1/advisories/{id}       -> advisory_json
//   GET /changes                      -> feed_json, or feed_atom for Accept: application/atom+xml
//   badge                              -> badge_json (shields.io endpoint)
//   the model page's "Change history"  -> history_rows
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "track/store.hpp"

namespace neurarch::track {

inline constexpr const char* kHistorySchema = "neurarch.changes/v1";
inline constexpr const char* kFeedSchema = "neurarch.change-feed/v1";

/// {"schema", "model", "url", "source", "tip", "revisions": [{"commit", "parent", "time", "author",
/// "title", "problems": [{"file","message"}], "changes": [{category, kind, subject, severity,
/// breaking, summary, before, after, detail, advisory}]}]}, oldest first; nullopt when untracked.
std::optional<nlohmann::json> history_json(Store& store, const std::string& repo);
std::string history_text(const nlohmann::json& history, bool breaking_only = false);
std::string history_markdown(const nlohmann::json& history, bool breaking_only = false);

/// The stored OSV JSON of one advisory; nullopt for an unknown id.
std::optional<nlohmann::json> advisory_json(Store& store, const std::string& id);

struct FeedOptions {
  std::size_t limit = 100;
  bool breaking_only = false;
  std::string base_url = "http://localhost:8080";  ///< where the server is reached, for links
};
/// {"schema", "changes": [{"model", "commit", "parent", "time", "title", ...change, "advisory"}]}, newest first.
nlohmann::json feed_json(Store& store, const FeedOptions& options = {});
/// The same entries as an Atom 1.0 feed (RFC 4287).
std::string feed_atom(Store& store, const FeedOptions& options = {});

/// shields.io endpoint JSON: {"schemaVersion": 1, "label": "last breaking change", "message", "color"}.
/// The colour ages with the change relative to `now` (seconds since the epoch).
std::optional<nlohmann::json> badge_json(Store& store, const std::string& repo, std::int64_t now);

/// One row of the model page's "Change history" table. Text fields come twice, escaped for HTML
/// and for a markdown table cell, so a template can paste them as they are.
struct HistoryRow {
  std::string date;          ///< YYYY-MM-DD
  std::string commit;        ///< full hash (hex, safe everywhere)
  std::string commit_short;  ///< 12 digits
  std::string category, kind, severity;
  bool breaking = false;
  std::string advisory_id;   ///< "" when not breaking
  std::string summary_html, summary_markdown;
  std::string title_html, title_markdown;
};
/// Newest first; nullopt when untracked.
std::optional<std::vector<HistoryRow>> history_rows(Store& store, const std::string& repo);

std::string escape_html(const std::string& text);
/// Safe inside one markdown table cell: pipes, backslashes, markup characters, newlines.
std::string escape_markdown(const std::string& text);

}  // namespace neurarch::track
