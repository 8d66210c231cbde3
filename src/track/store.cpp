#include "track/store.hpp"

#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"

namespace neurarch::track {
namespace {
using nlohmann::json;

StoredChange change_from_row(db::Statement& st, int first) {
  StoredChange c;
  c.repo = st.column_text(first);
  c.commit = st.column_text(first + 1);
  c.parent = st.column_text(first + 2);
  c.time = st.column_int(first + 3);
  c.title = st.column_text(first + 4);
  c.change = change_from_json(json::parse(st.column_text(first + 5)));
  c.advisory_id = st.column_optional_text(first + 6).value_or("");
  return c;
}

constexpr const char* kChangeColumns =
    "m.repo, c.commit_id, c.parent, c.time, r.title, c.change, c.advisory_id FROM track_changes c "
    "JOIN track_models m ON m.id = c.model_id JOIN track_revisions r ON r.model_id = c.model_id AND r.commit_id = c.commit_id ";

TrackedModel model_from_row(db::Statement& st) {
  return {st.column_int(0), st.column_text(1), st.column_text(2), st.column_text(3),
          st.column_optional_text(4).value_or(""), st.column_int(5), st.column_int(6)};
}

constexpr const char* kModelColumns = "SELECT id, repo, url, source, tip, revisions, updated_at FROM track_models ";

}  // namespace

std::string default_store_path() {
  namespace fs = std::filesystem;
  if (const char* explicit_path = std::getenv("NEURARCH_TRACK_DB"); explicit_path && *explicit_path) return explicit_path;
  fs::path base;
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg)
    base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home)
    base = fs::path(home) / ".local" / "share";
  else
    throw Error(ErrorKind::NotFound, "--db", "no home folder to keep the change database in; pass --db FILE");
  return (base / "neurarch" / "changes.db").string();
}

const std::vector<std::string>& store_migrations() {
  static const std::vector<std::string> migrations = {
      R"(CREATE TABLE track_models(
           id INTEGER PRIMARY KEY, repo TEXT NOT NULL UNIQUE, url TEXT NOT NULL, source TEXT NOT NULL,
           tip TEXT, revisions INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL DEFAULT 0);
         CREATE TABLE track_revisions(
           model_id INTEGER NOT NULL REFERENCES track_models(id) ON DELETE CASCADE,
           commit_id TEXT NOT NULL, seq INTEGER NOT NULL, parent TEXT NOT NULL, time INTEGER NOT NULL,
           author TEXT NOT NULL, title TEXT NOT NULL, problems TEXT NOT NULL, config_ok INTEGER NOT NULL,
           record TEXT NOT NULL,
           PRIMARY KEY(model_id, commit_id));
         CREATE UNIQUE INDEX track_revisions_seq ON track_revisions(model_id, seq);
         CREATE TABLE track_changes(
           id INTEGER PRIMARY KEY, model_id INTEGER NOT NULL REFERENCES track_models(id) ON DELETE CASCADE,
           commit_id TEXT NOT NULL, parent TEXT NOT NULL, ord INTEGER NOT NULL, time INTEGER NOT NULL,
           category TEXT NOT NULL, kind TEXT NOT NULL, severity TEXT NOT NULL, change TEXT NOT NULL,
           advisory_id TEXT UNIQUE);
         CREATE INDEX track_changes_model ON track_changes(model_id, time);
         CREATE INDEX track_changes_time ON track_changes(time);
         CREATE TABLE track_advisories(
           id TEXT PRIMARY KEY, model_id INTEGER NOT NULL REFERENCES track_models(id) ON DELETE CASCADE,
           commit_id TEXT NOT NULL, time INTEGER NOT NULL, osv TEXT NOT NULL);)",
  };
  return migrations;
}

Store::Store(const std::string& path) : db_([&] {
  if (path != ":memory:") {
    std::error_code ec;
    const auto dir = std::filesystem::path(path).parent_path();
    if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  }
  return db::Database(path);
}()) {
  db_.migrate(store_migrations());
  // In WAL mode NORMAL still never corrupts the file; a power cut may lose the last revisions,
  // which the next run reads again. FULL would fsync every batch of a long first run.
  db_.exec("PRAGMA synchronous=NORMAL");
}

std::optional<TrackedModel> Store::model(const std::string& repo) {
  auto st = db_.prepare(std::string(kModelColumns) + "WHERE repo = ?");
  st.bind(1, std::string_view(repo));
  if (!st.step()) return std::nullopt;
  return model_from_row(st);
}

std::vector<TrackedModel> Store::models() {
  auto st = db_.prepare(std::string(kModelColumns) + "ORDER BY repo");
  std::vector<TrackedModel> out;
  while (st.step()) out.push_back(model_from_row(st));
  return out;
}

std::int64_t Store::upsert_model(const std::string& repo, const std::string& url, const std::string& source) {
  // A re-run with nothing new stays read-only: no write, no fsync.
  if (const auto known = model(repo); known && known->url == url && known->source == source) return known->id;
  db_.prepare("INSERT INTO track_models(repo, url, source) VALUES(?, ?, ?) "
              "ON CONFLICT(repo) DO UPDATE SET url = excluded.url, source = excluded.source")
      .bind(1, std::string_view(repo))
      .bind(2, std::string_view(url))
      .bind(3, std::string_view(source))
      .run();
  return model(repo)->id;
}

void Store::set_tip(std::int64_t model_id, const std::string& tip, std::int64_t updated_at) {
  db_.prepare("UPDATE track_models SET tip = ?, updated_at = ?, "
              "revisions = (SELECT COUNT(*) FROM track_revisions WHERE model_id = ?) WHERE id = ?")
      .bind(1, std::string_view(tip))
      .bind(2, updated_at)
      .bind(3, model_id)
      .bind(4, model_id)
      .run();
}

bool Store::has_revision(std::int64_t model_id, const std::string& commit) {
  auto st = db_.prepare("SELECT 1 FROM track_revisions WHERE model_id = ? AND commit_id = ?");
  st.bind(1, model_id).bind(2, std::string_view(commit));
  return st.step();
}

std::optional<StoredRevision> Store::revision(std::int64_t model_id, const std::string& commit) {
  auto st = db_.prepare("SELECT seq, record FROM track_revisions WHERE model_id = ? AND commit_id = ?");
  st.bind(1, model_id).bind(2, std::string_view(commit));
  if (!st.step()) return std::nullopt;
  return StoredRevision{st.column_int(0), record_from_json(json::parse(st.column_text(1)))};
}

std::optional<StoredRevision> Store::last_readable_config(std::int64_t model_id, std::int64_t seq) {
  auto st = db_.prepare("SELECT seq, record FROM track_revisions WHERE model_id = ? AND seq <= ? AND config_ok = 1 "
                        "ORDER BY seq DESC LIMIT 1");
  st.bind(1, model_id).bind(2, seq);
  if (!st.step()) return std::nullopt;
  return StoredRevision{st.column_int(0), record_from_json(json::parse(st.column_text(1)))};
}

std::int64_t Store::next_seq(std::int64_t model_id) {
  auto st = db_.prepare("SELECT COALESCE(MAX(seq) + 1, 0) FROM track_revisions WHERE model_id = ?");
  st.bind(1, model_id);
  st.step();
  return st.column_int(0);
}

namespace {
// Repository bytes reach the stored JSON as read (a config.json whose key is not UTF-8 is quoted in its
// parse error): such bytes are stored as U+FFFD instead of throwing and ending the run half-way (found by
// fuzz/track_fuzzer.cpp).
std::string stored_text(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }
}  // namespace

void Store::add_revision(std::int64_t model_id, std::int64_t seq, const RevisionRecord& r, const std::vector<Change>& changes,
                         const std::vector<std::pair<std::string, json>>& advisories) {
  json problems = json::array();
  for (const auto& p : r.problems) problems.push_back({{"file", p.file}, {"message", p.message}});
  db_.prepare("INSERT INTO track_revisions(model_id, commit_id, seq, parent, time, author, title, problems, config_ok, record) "
              "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .bind(1, model_id)
      .bind(2, std::string_view(r.commit))
      .bind(3, seq)
      .bind(4, std::string_view(r.parent))
      .bind(5, r.time)
      .bind(6, std::string_view(r.author))
      .bind(7, std::string_view(r.title))
      .bind(8, std::string_view(stored_text(problems)))
      .bind(9, std::int64_t{r.config.json ? 1 : 0})
      .bind(10, std::string_view(stored_text(to_json(r))))
      .run();
  auto insert_change = db_.prepare(
      "INSERT INTO track_changes(model_id, commit_id, parent, ord, time, category, kind, severity, change, advisory_id) "
      "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  auto insert_advisory = db_.prepare("INSERT INTO track_advisories(id, model_id, commit_id, time, osv) VALUES(?, ?, ?, ?, ?)");
  std::size_t next_advisory = 0;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const Change& c = changes[i];
    std::optional<std::string> advisory_id;
    if (c.breaking()) {
      if (next_advisory >= advisories.size())
        throw Error(ErrorKind::InvalidInput, r.commit, "a breaking change has no advisory");
      const auto& [id, osv] = advisories[next_advisory++];
      advisory_id = id;
      insert_advisory.bind(1, std::string_view(id)).bind(2, model_id).bind(3, std::string_view(r.commit)).bind(4, r.time);
      insert_advisory.bind(5, std::string_view(stored_text(osv))).run();
    }
    insert_change.bind(1, model_id)
        .bind(2, std::string_view(r.commit))
        .bind(3, std::string_view(r.parent))
        .bind(4, static_cast<std::int64_t>(i))
        .bind(5, r.time)
        .bind(6, std::string_view(c.category))
        .bind(7, std::string_view(c.kind))
        .bind(8, std::string_view(severity_name(c.severity)))
        .bind(9, std::string_view(stored_text(to_json(c))))
        .bind(10, advisory_id)
        .run();
  }
}

std::vector<RevisionHistory> Store::history(std::int64_t model_id) {
  std::vector<RevisionHistory> out;
  auto revs = db_.prepare("SELECT seq, commit_id, parent, author, title, time, problems FROM track_revisions "
                          "WHERE model_id = ? ORDER BY seq");
  revs.bind(1, model_id);
  while (revs.step()) {
    RevisionHistory h;
    h.seq = revs.column_int(0);
    h.commit = revs.column_text(1);
    h.parent = revs.column_text(2);
    h.author = revs.column_text(3);
    h.title = revs.column_text(4);
    h.time = revs.column_int(5);
    for (const auto& p : json::parse(revs.column_text(6)))
      h.problems.push_back({p.at("file").get<std::string>(), p.at("message").get<std::string>()});
    out.push_back(std::move(h));
  }
  auto changes = db_.prepare(std::string("SELECT r.seq, ") + kChangeColumns + "WHERE c.model_id = ? ORDER BY r.seq, c.ord");
  changes.bind(1, model_id);
  std::size_t at = 0;
  while (changes.step()) {
    const std::int64_t seq = changes.column_int(0);
    while (at < out.size() && out[at].seq < seq) ++at;
    if (at < out.size() && out[at].seq == seq) out[at].changes.push_back(change_from_row(changes, 1));
  }
  return out;
}

std::vector<StoredChange> Store::recent_changes(std::size_t limit, bool breaking_only) {
  auto st = db_.prepare(std::string("SELECT ") + kChangeColumns + (breaking_only ? "WHERE c.severity = 'breaking' " : "") +
                        "ORDER BY c.time DESC, r.seq DESC, c.ord LIMIT ?");
  st.bind(1, static_cast<std::int64_t>(limit));
  std::vector<StoredChange> out;
  while (st.step()) out.push_back(change_from_row(st, 0));
  return out;
}

std::optional<StoredChange> Store::last_breaking(std::int64_t model_id) {
  auto st = db_.prepare(std::string("SELECT ") + kChangeColumns +
                        "WHERE c.model_id = ? AND c.severity = 'breaking' ORDER BY r.seq DESC, c.ord LIMIT 1");
  st.bind(1, model_id);
  if (!st.step()) return std::nullopt;
  return change_from_row(st, 0);
}

std::optional<std::string> Store::advisory(const std::string& id) {
  auto st = db_.prepare("SELECT osv FROM track_advisories WHERE id = ?");
  st.bind(1, std::string_view(id));
  if (!st.step()) return std::nullopt;
  return st.column_text(0);
}

std::vector<std::pair<std::string, std::string>> Store::advisories_of(std::int64_t model_id) {
  auto st = db_.prepare("SELECT a.id, a.osv FROM track_advisories a JOIN track_revisions r "
                        "ON r.model_id = a.model_id AND r.commit_id = a.commit_id WHERE a.model_id = ? ORDER BY r.seq, a.id");
  st.bind(1, model_id);
  std::vector<std::pair<std::string, std::string>> out;
  while (st.step()) out.emplace_back(st.column_text(0), st.column_text(1));
  return out;
}

}  // namespace neurarch::track
