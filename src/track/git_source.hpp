#pragma once
// A local clone read with libgit2. `GIT_LFS_SKIP_SMUDGE=1 git clone` leaves LFS pointers in place,
// which is all the tracker needs; no working tree is read, only objects, so a bare clone works too.
#include <filesystem>
#include <memory>
#include <string>

#include "track/source.hpp"

namespace neurarch::track {

class GitSource final : public RevisionSource {
 public:
  /// Throws NotFound when `path` is not a git repository and when `ref` does not name a commit.
  explicit GitSource(const std::filesystem::path& path, std::string ref = "HEAD");
  ~GitSource() override;
  GitSource(const GitSource&) = delete;
  GitSource& operator=(const GitSource&) = delete;

  std::string url() const override;
  std::string tip() override;
  std::vector<SourceCommit> commits_since(const std::function<bool(const std::string&)>& known) override;
  std::vector<SourceFile> files(const std::string& commit) override;
  std::string read(const std::string& commit, const SourceFile& file, std::uint64_t max_bytes) override;
  std::vector<std::string> repository_problems() override;

  /// "org/name" when the origin remote is a Hugging Face URL; "" otherwise.
  std::string hub_id() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace neurarch::track
