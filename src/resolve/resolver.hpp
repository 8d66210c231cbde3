#pragma once
// Turns the MODEL argument of `neurarch-trace MODEL` into a config.json text and its provenance.
// Lookup order: "-" (stdin), an existing path, the local Hugging Face cache, the bundled
// catalogue, then an optional online Hub client. Every failure is a neurarch::Error whose
// one-line message says where the resolver looked.
#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace neurarch::resolve {

struct ResolvedModel {
  std::string id;             ///< "facebook/dinov2-small", the path as given, or "-" for stdin
  std::string revision;       ///< commit hash (cache), requested ref, or "" when unknown
  std::string source;         ///< "path" | "stdin" | "hf-cache" | "catalogue" | "hub"
  std::string config_text;    ///< exact bytes of config.json (size-limited)
  std::string config_origin;  ///< a path, "<stdin>" or "catalogue:<id>"; used in error messages
  std::optional<std::filesystem::path> model_dir;  ///< folder that may hold *.safetensors
};

// Seam for the online Hub client: asked only after path, cache and catalogue all fail.
class HubFetcher {
 public:
  virtual ~HubFetcher() = default;
  /// `revision` is "" when the user asked for none. Returns nullopt when the Hub has no such repo.
  virtual std::optional<ResolvedModel> fetch(const std::string& repo_id, const std::string& revision) = 0;
};

struct ResolveOptions {
  std::optional<std::filesystem::path> hub_cache;  ///< overrides the environment
  HubFetcher* hub = nullptr;
  std::istream* stdin_stream = nullptr;  ///< nullptr: std::cin
  std::string revision;                  ///< from --revision; "id@rev" in the spec also works
  bool offline = false;
};

/// $HF_HUB_CACHE, else $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub,
/// else ~/.cache/huggingface/hub. Empty when not even a home folder is known.
std::filesystem::path default_hub_cache();

ResolvedModel resolve(const std::string& spec, const ResolveOptions& opts = {});

/// Only resolve()'s Hub-id branch (the local cache, the catalogue, then opts.hub): never a path or
/// stdin, so a server may pass ids its clients name.
ResolvedModel resolve_repo_id(const std::string& spec, const ResolveOptions& opts = {});
/// "name" or "org/name" by the Hub's grammar (no "--", "..", leading or trailing '-' or '.').
bool is_hub_repo_id(std::string_view id);
/// Every id the bundled catalogue and the cache at `cache_root` hold, sorted, without duplicates.
std::vector<std::string> known_repo_ids(const std::filesystem::path& cache_root);

/// Up to `n` known ids (bundled catalogue and repos in the default cache) close to `spec`,
/// best first, by edit distance on lowercase text, also comparing the name after the org alone.
/// Ids too far away to be a plausible typo are left out, so the result may be empty.
std::vector<std::string> nearest_known_ids(const std::string& spec, std::size_t n = 3);

}  // namespace neurarch::resolve
