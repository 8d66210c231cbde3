#pragma once
// Online Hugging Face Hub client behind the resolver's HubFetcher seam. It fetches config.json and
// only the *headers* of the safetensors checkpoint (HTTP Range requests, shards in parallel), and
// writes them into the standard Hugging Face cache so a later run, ours or transformers', finds
// them offline.
//
// Cache layout under <cache>/models--org--name/ (what transformers writes, plus one folder):
//   blobs/<etag>                    real bytes of config.json, exactly as the Hub serves them
//   snapshots/<commit>/config.json  relative symlink to the blob (a copy where links fail)
//   refs/<revision>                 the commit the revision resolved to (not for commit revisions)
//   neurarch/<commit>/              header-only stand-ins, see below; ignored by huggingface_hub
//
// Header-only stand-ins live in neurarch/<commit>/ and NEVER under snapshots/: each
// *.safetensors there holds the real 8-byte prefix and JSON header, then a hole up to the real
// file size, so its tensor data reads as zeros. Under snapshots/ transformers would load those
// zeros as weights without a word (a marked blob name does not stop it following the link).
// The folder also holds model.safetensors.index.json when sharded, manifest.json (marks the
// folder as stand-ins, lists sizes and ETags) and model_info.json (the Hub's model facts).
// checkpoint_dir() maps a snapshot to this folder for the checkpoint reader.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "resolve/resolver.hpp"

namespace neurarch::hub {

enum class ProgressMode { Auto, Always, Never };  // Auto: only when stderr is a terminal

// Defaults follow huggingface_hub where it has one: 10 s metadata/connect timeout
// (HF_HUB_ETAG_TIMEOUT) and 10 s read timeout (HF_HUB_DOWNLOAD_TIMEOUT); back-off doubling up to
// 8 s as in its http_backoff. We fetch kilobytes, so the first wait is shorter than its 1 s.
struct NetworkPolicy {
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds stall_timeout{10'000};     ///< no byte for this long fails the transfer
  std::chrono::milliseconds request_timeout{300'000};  ///< whole transfer; a 100 MiB header on a slow line
  int max_attempts = 4;                                ///< per request, the first try included
  std::chrono::milliseconds backoff_first{500};
  std::chrono::milliseconds backoff_max{8'000};
  std::chrono::seconds retry_after_max{60};  ///< a longer Retry-After fails at once instead of hanging
  long max_connections = 16;                 ///< per host; HTTP/2 multiplexes shards over fewer
};

struct HubOptions {
  std::string endpoint;              ///< "" -> $HF_ENDPOINT, else https://huggingface.co
  std::optional<std::string> token;  ///< nullopt -> $HF_TOKEN, else the token file; "" sends none
  std::filesystem::path cache_dir;   ///< "" -> resolve::default_hub_cache()
  bool offline = false;              ///< HF_HUB_OFFLINE=1 sets it too
  bool fetch_headers = true;         ///< safetensors headers; off: config.json only
  bool fetch_model_info = true;
  ProgressMode progress = ProgressMode::Auto;
  std::ostream* progress_stream = nullptr;  ///< nullptr: std::cerr
  NetworkPolicy network;
};

/// The Hub's own facts about a model, from /api/models/{repo}/revision/{commit}.
struct ModelInfo {
  std::string id;
  std::string sha;            ///< commit
  std::string last_modified;  ///< ISO 8601 as the Hub writes it
  std::string gated;          ///< "false", "auto" or "manual"
  std::optional<std::int64_t> downloads, likes;
  std::optional<std::int64_t> safetensors_total;  ///< the Hub's parameter count, a second opinion
};

class HubClient final : public resolve::HubFetcher {
 public:
  explicit HubClient(const HubOptions& options);
  ~HubClient() override;
  HubClient(const HubClient&) = delete;
  HubClient& operator=(const HubClient&) = delete;

  /// nullopt when the Hub has no such repo (or hides a private one); every other failure is a
  /// neurarch::Error with a one-line message. Served from the cache without a request when the
  /// cache already resolves the revision.
  std::optional<resolve::ResolvedModel> fetch(const std::string& repo_id, const std::string& revision) override;

  /// Model facts of the last successful fetch (from the cache when it came from there).
  const std::optional<ModelInfo>& model_info() const { return model_info_; }
  const std::string& endpoint() const;
  const std::filesystem::path& cache_dir() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::optional<ModelInfo> model_info_;
};

std::unique_ptr<resolve::HubFetcher> make_hub_client(const HubOptions& options);

/// Where to read the checkpoint of a resolved model: the snapshot itself when it holds
/// *.safetensors (a real download), else its header-only stand-ins when we fetched them, else
/// `model_dir` unchanged.
std::filesystem::path checkpoint_dir(const std::filesystem::path& model_dir);

/// True when `dir` is a folder of header-only stand-ins (has our manifest).
bool is_header_only(const std::filesystem::path& dir);

/// The cached model facts for a snapshot or stand-in folder, if a fetch stored them.
std::optional<ModelInfo> cached_model_info(const std::filesystem::path& model_dir);

}  // namespace neurarch::hub
