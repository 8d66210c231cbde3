#include <algorithm>
#include <cctype>
#include <fstream>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join lives here from fmt 11 on

#include "core/error.hpp"
#include "core/limits.hpp"
#include "hub/cache.hpp"
#include "hub/errors.hpp"
#include "hub/hub.hpp"
#include "hub/http.hpp"
#include "hub/model_info.hpp"
#include "hub/progress.hpp"
#include "hub/remote_checkpoint.hpp"
#include "hub/settings.hpp"

namespace neurarch::hub {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kDefaultRef = "main";
constexpr std::string_view kConfigName = "config.json";
// The API lists every file of a repo; big repos reach megabytes, a config never needs that.
constexpr std::uint64_t kMaxModelInfoBytes = 16ull << 20;

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return out;
}

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

bool is_commit_hash(std::string_view s) { return (s.size() == 40 || s.size() == 64) && is_hex(s); }

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_' || c == '.'; }

// The ids and revisions become cache paths; these are the Hub's own rules, and they keep a
// hostile argument from naming a path outside the cache.
bool valid_repo_part(std::string_view part) {
  return !part.empty() && part.size() <= 96 && std::all_of(part.begin(), part.end(), is_name_char) &&
         part.front() != '-' && part.front() != '.' && part.find("..") == std::string_view::npos &&
         part.find("--") == std::string_view::npos;
}

bool valid_repo_id(std::string_view id) {
  const auto slash = id.find('/');
  if (slash == std::string_view::npos) return valid_repo_part(id);
  return valid_repo_part(id.substr(0, slash)) && valid_repo_part(id.substr(slash + 1));
}

bool valid_revision(std::string_view rev) {
  if (rev.empty() || rev.size() > 255) return false;
  if (!std::all_of(rev.begin(), rev.end(), [](char c) { return is_name_char(c) || c == '/' || c == '+'; })) return false;
  std::size_t start = 0;
  while (start <= rev.size()) {
    const auto end = std::min(rev.find('/', start), rev.size());
    const std::string_view part = rev.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

// The resolver strips "refs/" from "refs/pr/1"; the Hub wants it back.
std::string hub_revision(const std::string& rev) {
  if (rev.starts_with("pr/") || rev.starts_with("convert/")) return "refs/" + rev;
  return rev;
}

// ETags become blob file names, so only the characters a hash can have are accepted.
std::string blob_name(const Response& r, const std::string& where) {
  std::string etag = r.header("x-linked-etag").value_or(r.header("etag").value_or(""));
  if (etag.starts_with("W/")) etag.erase(0, 2);
  etag.erase(std::remove(etag.begin(), etag.end(), '"'), etag.end());
  if (etag.empty() || etag.size() > 128 || etag.front() == '.' || !std::all_of(etag.begin(), etag.end(), is_name_char)) {
    throw Error(ErrorKind::InvalidInput, where, "the Hub sent no usable ETag for config.json; cannot cache it");
  }
  return etag;
}

std::string read_small(const fs::path& file, std::uint64_t limit) {
  std::error_code ec;
  const auto size = fs::file_size(file, ec);
  if (ec) throw Error(ErrorKind::Io, file.string(), "cannot read: " + ec.message());
  if (size > limit) throw Error(ErrorKind::InvalidInput, file.string(), fmt::format("{} bytes, more than {}", size, limit));
  std::ifstream in(file, std::ios::binary);
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (!in) throw Error(ErrorKind::Io, file.string(), "read failed");
  return text;
}

fs::path standins_of_snapshot(const fs::path& snapshot) {
  const fs::path snapshots = snapshot.parent_path();
  if (snapshots.filename() != "snapshots") return {};
  return snapshots.parent_path() / "neurarch" / snapshot.filename();
}

bool has_safetensors(const fs::path& dir) {
  std::error_code ec;
  if (fs::exists(dir / kIndexName, ec)) return true;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".safetensors") return true;
  }
  return false;
}

}  // namespace

// ---------------------------------------------------------------- free functions

bool is_header_only(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::is_regular_file(dir / kManifestName, ec);
}

fs::path checkpoint_dir(const fs::path& model_dir) {
  if (has_safetensors(model_dir)) return model_dir;
  const fs::path standins = standins_of_snapshot(model_dir);
  return is_header_only(standins) ? standins : model_dir;
}

std::optional<ModelInfo> cached_model_info(const fs::path& model_dir) {
  const fs::path dir = is_header_only(model_dir) ? model_dir : standins_of_snapshot(model_dir);
  std::error_code ec;
  if (dir.empty() || !fs::is_regular_file(dir / kModelInfoName, ec)) return std::nullopt;
  return parse_model_info(read_small(dir / kModelInfoName, kMaxModelInfoBytes));
}

// ---------------------------------------------------------------- the client

struct HubClient::Impl {
  Settings settings;
  std::ostream* progress_out = nullptr;
  bool fetch_headers = true;
  bool fetch_model_info = true;

  std::string resolve_url(const std::string& repo, const std::string& rev, const std::string& file) const {
    return fmt::format("{}/{}/resolve/{}/{}", settings.endpoint, repo, url_encode(hub_revision(rev), false),
                       url_encode(file, true));
  }

  std::string info_url(const std::string& repo, const std::string& commit) const {
    return fmt::format("{}/api/models/{}/revision/{}", settings.endpoint, repo, commit);
  }

  std::optional<resolve::ResolvedModel> from_cache(const RepoCache& cache, const std::string& repo,
                                                   const std::string& rev) const {
    const std::optional<std::string> commit = is_commit_hash(rev) ? std::optional(lowercase(rev)) : cache.read_ref(rev);
    if (!commit) return std::nullopt;
    const fs::path snapshot = cache.snapshot(*commit);
    const fs::path config = snapshot / kConfigName;
    std::error_code ec;
    if (!fs::exists(config, ec)) return std::nullopt;
    resolve::ResolvedModel model{repo, *commit, "hf-cache", read_small(config, limits::kMaxConfigBytes),
                                 config.string(), checkpoint_dir(snapshot)};
    return model;
  }

  // What a network failure message says about --offline, knowing the cache lacks `rev`.
  std::string offline_note(const RepoCache& cache, const std::string& rev) const {
    const auto commits = cache.snapshot_commits();
    if (commits.empty()) {
      return fmt::format("the Hugging Face cache {} has no copy of it, so --offline would not help",
                         settings.cache_dir.string());
    }
    std::vector<std::string> shown(commits.begin(), commits.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(3, commits.size())));
    return fmt::format("revision '{}' is not in the Hugging Face cache, but --offline --revision COMMIT would use "
                       "one of its {} cached snapshot(s): {}",
                       rev, commits.size(), fmt::join(shown, ", "));
  }
};

HubClient::HubClient(const HubOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->settings = resolve_settings(options);
  impl_->progress_out = progress_stream(options.progress, options.progress_stream);
  impl_->fetch_headers = options.fetch_headers;
  impl_->fetch_model_info = options.fetch_model_info;
}

HubClient::~HubClient() = default;

const std::string& HubClient::endpoint() const { return impl_->settings.endpoint; }
const fs::path& HubClient::cache_dir() const { return impl_->settings.cache_dir; }

std::optional<resolve::ResolvedModel> HubClient::fetch(const std::string& repo_id, const std::string& revision) {
  const Impl& im = *impl_;
  const std::string rev = revision.empty() ? std::string(kDefaultRef) : revision;
  if (!valid_repo_id(repo_id)) throw Error(ErrorKind::InvalidInput, repo_id, "not a Hub model id (name or org/name)");
  if (!valid_revision(rev)) throw Error(ErrorKind::InvalidInput, repo_id, fmt::format("'{}' is not a valid revision", rev));
  if (im.settings.cache_dir.empty()) {
    throw Error(ErrorKind::NotFound, repo_id, "no Hugging Face cache folder is known (set HF_HUB_CACHE or HF_HOME)");
  }
  const RepoCache cache(im.settings.cache_dir, repo_id);
  if (auto hit = im.from_cache(cache, repo_id, rev)) {
    model_info_ = cached_model_info(*hit->model_dir);
    return hit;
  }
  if (im.settings.offline) {
    throw Error(ErrorKind::NotFound, repo_id + "@" + rev,
                fmt::format("not in the Hugging Face cache {}, and offline mode (--offline or HF_HUB_OFFLINE) does not "
                            "ask the Hub",
                            im.settings.cache_dir.string()));
  }

  Progress progress(im.progress_out);
  progress.begin(repo_id);
  HttpClient http(im.settings, progress);
  FetchContext ctx{repo_id, rev, std::string(kConfigName), &im.settings, im.offline_note(cache, rev)};
  progress.stage("config.json", 1);
  const Response config = http.get({im.resolve_url(repo_id, rev, std::string(kConfigName)), {}, limits::kMaxConfigBytes});
  switch (check(config, ctx)) {
    case Failure::RepoNotFound: return std::nullopt;
    case Failure::EntryNotFound:
      throw Error(ErrorKind::NotFound, repo_id + "@" + rev,
                  "the repo has no config.json at this revision; neurarch needs a transformers-style config.json");
    case Failure::None: break;
  }
  const std::string where = repo_id + "@" + rev;
  std::string commit = lowercase(config.header("x-repo-commit").value_or(is_commit_hash(rev) ? rev : ""));
  if (!is_commit_hash(commit)) throw Error(ErrorKind::InvalidInput, where, "the Hub did not say which commit the revision is");
  const std::string etag = blob_name(config, where);

  // Everything after config.json is pinned to its commit, so a push meanwhile cannot mix revisions.
  std::vector<Request> round;
  if (im.fetch_model_info) round.push_back({im.info_url(repo_id, commit), {}, kMaxModelInfoBytes});
  if (im.fetch_headers) {
    round.push_back({im.resolve_url(repo_id, commit, std::string(kIndexName)), {}, limits::kMaxIndexBytes});
    round.push_back({im.resolve_url(repo_id, commit, "model.safetensors"), ByteRange{0, 7}, 8});
  }
  progress.stage("index and model info", round.size());
  const auto answers = http.get_all(round);
  std::optional<ModelInfo> info;
  // The model facts are a second opinion: their failure must not fail the trace.
  if (im.fetch_model_info && answers.front().ok()) info = parse_model_info(answers.front().body);
  RemoteCheckpoint remote;
  if (im.fetch_headers) {
    RemoteFiles files{http, progress, [&](const std::string& name) { return im.resolve_url(repo_id, commit, name); }, ctx};
    remote = fetch_checkpoint(files, answers.back(), answers[answers.size() - 2]);
  }

  if (!remote.files.empty() || info) {
    cache.store_standins(repo_id, commit, remote.files, remote.index_text,
                         info ? std::optional(model_info_json(*info)) : std::nullopt);
  }
  const fs::path config_path = cache.store_file(commit, std::string(kConfigName), etag, config.body);
  if (!is_commit_hash(rev)) cache.write_ref(rev, commit);  // last: a ref only ever names a complete snapshot
  progress.clear();

  model_info_ = info;
  return resolve::ResolvedModel{repo_id, commit, "hub", config.body, config_path.string(),
                                checkpoint_dir(cache.snapshot(commit))};
}

std::unique_ptr<resolve::HubFetcher> make_hub_client(const HubOptions& options) {
  return std::make_unique<HubClient>(options);
}

}  // namespace neurarch::hub
