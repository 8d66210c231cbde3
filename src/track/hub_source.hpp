#pragma once
// A model's history through the Hub's API, with the Hub client's HTTP layer (libcurl, retries,
// token handling): /api/models/{repo}/commits/{rev} lists commits newest first, page by page;
// /api/models/{repo}/tree/{commit} lists files with their git blob ids and LFS oid/size, so
// checkpoints are never downloaded; small files come from /{repo}/resolve/{commit}/{path}.
#include <memory>
#include <string>

#include "hub/hub.hpp"
#include "track/source.hpp"

namespace neurarch::track {

struct HubSourceOptions {
  hub::HubOptions hub;        ///< endpoint, token, network policy (the cache is not used)
  std::size_t max_pages = 400;  ///< commit-list pages at most; a bound on a hostile endpoint
};

class HubSource final : public RevisionSource {
 public:
  /// Throws InvalidInput for a malformed id and Io in offline mode.
  HubSource(std::string repo, std::string revision, HubSourceOptions options);
  ~HubSource() override;
  HubSource(const HubSource&) = delete;
  HubSource& operator=(const HubSource&) = delete;

  std::string url() const override;
  std::string tip() override;
  std::vector<SourceCommit> commits_since(const std::function<bool(const std::string&)>& known) override;
  std::vector<SourceFile> files(const std::string& commit) override;
  std::string read(const std::string& commit, const SourceFile& file, std::uint64_t max_bytes) override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The Hub's ISO 8601 dates ("2024-05-01T12:00:00.000Z") as seconds since the epoch; 0 when unreadable.
std::int64_t parse_hub_time(const std::string& text);

}  // namespace neurarch::track
