#include "hub/cache.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <fstream>
#include <system_error>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace neurarch::hub {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void io_failure(const fs::path& path, const std::string& what, const std::error_code& ec) {
  throw Error(ErrorKind::Io, path.string(), fmt::format("{}: {}", what, ec.message()));
}

void make_dirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) io_failure(dir, "cannot create the cache folder", ec);
}

void write_plain(const fs::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw Error(ErrorKind::Io, path.string(), "cannot write to the cache (disk full or read-only?)");
}

bool is_commit_hash(std::string_view s) {
  return (s.size() == 40 || s.size() == 64) &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// Removes a temporary on the way out unless it was renamed into place.
struct TempGuard {
  fs::path path;
  bool armed = true;
  ~TempGuard() {
    std::error_code ec;
    if (armed) fs::remove_all(path, ec);
  }
};

std::string manifest(const std::string& repo_id, const std::string& commit, const std::vector<StandIn>& files,
                     bool sharded) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& f : files) {
    list.push_back({{"name", f.name}, {"size", f.size}, {"header_bytes", f.bytes.size()}, {"etag", f.etag}});
  }
  const nlohmann::json doc = {
      {"format", "neurarch-header-only/1"},
      {"warning",
       "Header-only stand-ins written by neurarch: each *.safetensors holds the real 8-byte prefix and JSON "
       "header, then a sparse hole; the tensor data reads as zeros. Never load these files as weights."},
      {"repo", repo_id},
      {"commit", commit},
      {"index", sharded ? nlohmann::json(std::string(kIndexName)) : nlohmann::json(nullptr)},
      {"files", list}};
  return doc.dump(2) + "\n";
}

}  // namespace

fs::path temporary_beside(const fs::path& target) {
  static std::atomic<unsigned> counter{0};
  return target.parent_path() /
         fmt::format("{}.incomplete.{}.{}", target.filename().string(), ::getpid(), counter.fetch_add(1));
}

void write_atomically(const fs::path& target, std::string_view bytes) {
  make_dirs(target.parent_path());
  TempGuard tmp{temporary_beside(target)};
  write_plain(tmp.path, bytes);
  std::error_code ec;
  fs::rename(tmp.path, target, ec);
  if (ec) io_failure(target, "cannot move a finished file into place", ec);
  tmp.armed = false;
}

RepoCache::RepoCache(fs::path cache_root, std::string_view repo_id) {
  std::string name = "models--";
  for (const char c : repo_id) name += c == '/' ? std::string("--") : std::string(1, c);
  dir_ = std::move(cache_root) / name;
}

std::optional<std::string> RepoCache::read_ref(const std::string& ref) const {
  std::ifstream in(dir_ / "refs" / fs::path(ref), std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(128, '\0');  // a hash and maybe a newline; more is not a ref file
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())) != 0) text.pop_back();
  std::transform(text.begin(), text.end(), text.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  if (!is_commit_hash(text)) return std::nullopt;
  return text;
}

void RepoCache::write_ref(const std::string& ref, const std::string& commit) const {
  // No newline: huggingface_hub writes the bare hash.
  write_atomically(dir_ / "refs" / fs::path(ref), commit);
}

fs::path RepoCache::store_file(const std::string& commit, const std::string& name, const std::string& etag,
                               std::string_view bytes) const {
  const fs::path blob = dir_ / "blobs" / etag;
  std::error_code ec;
  if (!fs::exists(blob, ec)) write_atomically(blob, bytes);
  const fs::path link = snapshot(commit) / fs::path(name);
  make_dirs(link.parent_path());
  TempGuard tmp{temporary_beside(link)};
  // Relative, as huggingface_hub makes it, so the cache folder can be moved or mounted elsewhere.
  fs::create_symlink(blob.lexically_relative(link.parent_path()), tmp.path, ec);
  if (ec) {
    write_atomically(link, bytes);  // no symlinks here (some filesystems): a copy, as huggingface_hub does
    return link;
  }
  fs::rename(tmp.path, link, ec);
  if (ec) io_failure(link, "cannot move a finished link into place", ec);
  tmp.armed = false;
  return link;
}

void RepoCache::store_standins(const std::string& repo_id, const std::string& commit, const std::vector<StandIn>& files,
                               const std::optional<std::string>& index_text,
                               const std::optional<std::string>& model_info_json) const {
  const fs::path target = standins(commit);
  std::error_code ec;
  if (fs::exists(target / kManifestName, ec)) return;
  make_dirs(target.parent_path());
  TempGuard tmp{temporary_beside(target)};
  make_dirs(tmp.path);
  for (const auto& f : files) {
    const fs::path file = tmp.path / f.name;
    write_plain(file, f.bytes);
    // A hole, not zeros on disk: the stand-in costs its header bytes, yet reports the real size.
    fs::resize_file(file, f.size, ec);
    if (ec) io_failure(file, "cannot size a header-only stand-in", ec);
  }
  if (index_text) write_plain(tmp.path / kIndexName, *index_text);
  if (model_info_json) write_plain(tmp.path / kModelInfoName, *model_info_json);
  write_plain(tmp.path / kManifestName, manifest(repo_id, commit, files, index_text.has_value()));
  fs::remove_all(target, ec);  // a folder without a manifest is debris of an older crash
  fs::rename(tmp.path, target, ec);
  // Another process may have renamed its own complete copy in first; that one is as good.
  if (ec && !fs::exists(target / kManifestName)) io_failure(target, "cannot move the header stand-ins into place", ec);
  tmp.armed = static_cast<bool>(ec);
}

std::vector<std::string> RepoCache::snapshot_commits() const {
  std::vector<std::string> commits;
  std::error_code ec;
  for (fs::directory_iterator it(dir_ / "snapshots", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) commits.push_back(it->path().filename().string());
  }
  std::sort(commits.begin(), commits.end());
  return commits;
}

}  // namespace neurarch::hub
