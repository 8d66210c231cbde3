#include "track/tracker.hpp"

#include <ctime>
#include <optional>

#include "core/error.hpp"
#include "db/sqlite.hpp"
#include "track/classify.hpp"
#include "track/osv.hpp"
#include "track/revision_reader.hpp"

namespace neurarch::track {

TrackResult track(RevisionSource& source, Store& store, const TrackOptions& options) {
  if (options.repo.empty()) throw Error(ErrorKind::InvalidInput, "--id", "the repository needs an org/name id to be stored under");
  TrackResult result;
  result.repo = options.repo;
  const std::string url = source.url();
  const std::int64_t model_id = store.upsert_model(options.repo, url, options.source_kind);
  result.tip = source.tip();
  if (const auto m = store.model(options.repo); m && m->tip == result.tip) return result;

  const auto commits = source.commits_since([&](const std::string& c) { return store.has_revision(model_id, c); });
  std::optional<RevisionRecord> previous, baseline;
  std::int64_t seq = store.next_seq(model_id);
  if (!commits.empty() && !commits.front().parent.empty()) {
    if (auto stored = store.revision(model_id, commits.front().parent)) {
      previous = stored->record;
      if (auto good = store.last_readable_config(model_id, stored->seq)) baseline = good->record;
    }
  }

  if (options.progress) options.progress->start(options.repo, commits.size());
  std::optional<db::Transaction> tx;
  std::size_t in_tx = 0;
  auto repo_problems = source.repository_problems();
  for (const SourceCommit& commit : commits) {
    if (!tx) tx.emplace(store.database());
    const RevisionRecord* parent = previous && previous->commit == commit.parent ? &*previous : nullptr;
    RevisionRecord record = read_revision(source, commit, parent);
    if (!repo_problems.empty()) {
      for (auto& p : repo_problems) record.problems.insert(record.problems.begin(), {"", std::move(p)});
      repo_problems.clear();
    }
    std::vector<Change> changes;
    if (parent) changes = classify(*parent, record, baseline ? &*baseline : nullptr);
    std::vector<std::pair<std::string, nlohmann::json>> advisories;
    const AdvisoryContext ctx{options.repo, url, record.commit, record.parent, record.time, record.title};
    for (const auto& c : changes) {
      if (!c.breaking()) continue;
      advisories.emplace_back(advisory_id(options.repo, record.commit, c), osv_advisory(ctx, c));
      ++result.breaking;
    }
    store.add_revision(model_id, seq++, record, changes, advisories);
    result.changes += changes.size();
    for (const auto& p : record.problems) result.problems.push_back({record.commit, p});
    if (record.config.json) baseline = record;
    previous = std::move(record);
    ++result.new_revisions;
    if (++in_tx >= options.commit_every) {
      tx->commit();
      tx.reset();
      in_tx = 0;
    }
    if (options.progress) options.progress->advance();
  }
  if (!tx) tx.emplace(store.database());
  store.set_tip(model_id, result.tip, static_cast<std::int64_t>(std::time(nullptr)));
  tx->commit();
  if (options.progress) options.progress->clear();
  return result;
}

}  // namespace neurarch::track
