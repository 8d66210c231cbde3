#pragma once
// Where revisions come from: a local clone (libgit2) or the Hub's commit-listing API. The tracker
// sees only this interface, so both produce the same records and the same classification.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "track/record.hpp"

namespace neurarch::track {

struct LfsPointer {
  std::string oid;  ///< "sha256:<64 hex>"
  std::int64_t size = 0;
};

struct SourceFile {
  std::string path;   ///< relative to the repository root
  std::string blob;   ///< git object id: equal ids mean equal bytes
  std::int64_t size = 0;  ///< bytes of what git stores (the pointer for an LFS file)
  /// Set when the source already knows the file is in LFS (the Hub's tree API says so);
  /// a local clone leaves it empty and the pointer text is read instead.
  std::optional<LfsPointer> lfs;
};

struct SourceCommit {
  std::string commit;
  std::string parent;     ///< first parent; "" for a root commit
  std::int64_t time = 0;  ///< committer time, seconds since the epoch
  std::string author;
  std::string title;
  std::vector<Problem> problems;  ///< e.g. the parent is missing from a shallow clone
};

class RevisionSource {
 public:
  virtual ~RevisionSource() = default;
  /// The repository's URL for advisories' GIT ranges and references.
  virtual std::string url() const = 0;
  /// The commit the tracked ref points at now.
  virtual std::string tip() = 0;
  /// Commits from the tip back along first parents, stopping before the first one `known`
  /// accepts (or at the root); returned oldest first.
  virtual std::vector<SourceCommit> commits_since(const std::function<bool(const std::string&)>& known) = 0;
  /// Top-level files of a commit (model repositories keep what loaders read at the root).
  virtual std::vector<SourceFile> files(const std::string& commit) = 0;
  /// The bytes git stores for `file`; throws InvalidInput when larger than `max_bytes`.
  virtual std::string read(const std::string& commit, const SourceFile& file, std::uint64_t max_bytes) = 0;
  /// Problems of the repository as a whole (a shallow clone), recorded on the first new revision.
  virtual std::vector<std::string> repository_problems() { return {}; }
};

}  // namespace neurarch::track
