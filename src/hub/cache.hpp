#pragma once
// Writes into one repo folder of the standard Hugging Face cache (layout in hub/hub.hpp).
// Every file appears by rename of a finished temporary, so a crash or a concurrent reader never
// sees half a file, and refs/ is written last: a ref only ever names a complete snapshot.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neurarch::hub {

/// A header-only stand-in to write: the real prefix + header of a file of `size` bytes.
struct StandIn {
  std::string name;    ///< plain file name, as in the index
  std::string bytes;   ///< 8-byte prefix and JSON header
  std::uint64_t size = 0;
  std::string etag;
};

class RepoCache {
 public:
  RepoCache(std::filesystem::path cache_root, std::string_view repo_id);

  const std::filesystem::path& dir() const { return dir_; }
  std::filesystem::path snapshot(const std::string& commit) const { return dir_ / "snapshots" / commit; }
  std::filesystem::path standins(const std::string& commit) const { return dir_ / "neurarch" / commit; }

  std::optional<std::string> read_ref(const std::string& ref) const;
  void write_ref(const std::string& ref, const std::string& commit) const;

  /// blobs/<etag> plus snapshots/<commit>/<name> linking to it; returns the snapshot path.
  std::filesystem::path store_file(const std::string& commit, const std::string& name, const std::string& etag,
                                   std::string_view bytes) const;

  /// Writes neurarch/<commit>/ in one rename: stand-ins, the optional index, the manifest and
  /// the optional model info. A folder already there (another run's) is kept as it is.
  void store_standins(const std::string& repo_id, const std::string& commit, const std::vector<StandIn>& files,
                      const std::optional<std::string>& index_text, const std::optional<std::string>& model_info_json) const;

  /// Commits with a snapshot folder: what --offline could use.
  std::vector<std::string> snapshot_commits() const;

 private:
  std::filesystem::path dir_;
};

/// Writes `bytes` to a temporary beside `target` and renames it into place.
void write_atomically(const std::filesystem::path& target, std::string_view bytes);

/// A unique temporary name beside `target`, marked as incomplete.
std::filesystem::path temporary_beside(const std::filesystem::path& target);

inline constexpr std::string_view kManifestName = "manifest.json";
inline constexpr std::string_view kModelInfoName = "model_info.json";
inline constexpr std::string_view kIndexName = "model.safetensors.index.json";

}  // namespace neurarch::hub
