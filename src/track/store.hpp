#pragma once
// The tracker's SQLite store: tracked models, one record per revision, the classified changes
// and the OSV advisories. It lives in its own file (not the server's shared-report database)
// because each database's schema version is one PRAGMA user_version.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "db/sqlite.hpp"
#include "track/record.hpp"

namespace neurarch::track {

/// $NEURARCH_TRACK_DB, else $XDG_DATA_HOME/neurarch/changes.db, else ~/.local/share/neurarch/changes.db.
std::string default_store_path();

/// Numbered migrations; index i moves the schema from version i to i + 1.
const std::vector<std::string>& store_migrations();

struct TrackedModel {
  std::int64_t id = 0;
  std::string repo;    ///< "org/name"
  std::string url;     ///< where the history was read from
  std::string source;  ///< "git" | "hub"
  std::string tip;     ///< the last commit tracked; "" before the first run
  std::int64_t revisions = 0;
  std::int64_t updated_at = 0;
};

struct StoredRevision {
  std::int64_t seq = 0;  ///< 0 for the oldest tracked revision of the model
  RevisionRecord record;
};

struct StoredChange {
  std::string repo;
  std::string commit, parent;
  std::int64_t time = 0;
  std::string title;  ///< the commit's title
  Change change;
  std::string advisory_id;  ///< "" when not breaking
};

struct RevisionHistory {
  std::int64_t seq = 0;
  std::string commit, parent, author, title;
  std::int64_t time = 0;
  std::vector<Problem> problems;
  std::vector<StoredChange> changes;
};

class Store {
 public:
  /// Opens (creating) the file and brings its schema up to date; ":memory:" for tests.
  explicit Store(const std::string& path);

  std::optional<TrackedModel> model(const std::string& repo);
  std::vector<TrackedModel> models();
  /// Creates the model's row or updates its URL and source; returns its id.
  std::int64_t upsert_model(const std::string& repo, const std::string& url, const std::string& source);
  void set_tip(std::int64_t model_id, const std::string& tip, std::int64_t updated_at);

  bool has_revision(std::int64_t model_id, const std::string& commit);
  std::optional<StoredRevision> revision(std::int64_t model_id, const std::string& commit);
  /// The latest revision at or before `seq` whose config.json parsed.
  std::optional<StoredRevision> last_readable_config(std::int64_t model_id, std::int64_t seq);
  std::int64_t next_seq(std::int64_t model_id);

  /// One revision, its changes and the advisories of its breaking changes (parallel to the
  /// breaking changes, in order).
  void add_revision(std::int64_t model_id, std::int64_t seq, const RevisionRecord& record, const std::vector<Change>& changes,
                    const std::vector<std::pair<std::string, nlohmann::json>>& advisories);

  std::vector<RevisionHistory> history(std::int64_t model_id);
  /// Across models, newest first.
  std::vector<StoredChange> recent_changes(std::size_t limit, bool breaking_only);
  std::optional<StoredChange> last_breaking(std::int64_t model_id);
  std::optional<std::string> advisory(const std::string& id);
  /// id -> OSV JSON text of every advisory of a model, oldest first.
  std::vector<std::pair<std::string, std::string>> advisories_of(std::int64_t model_id);

  db::Database& database() { return db_; }

 private:
  db::Database db_;
};

}  // namespace neurarch::track
