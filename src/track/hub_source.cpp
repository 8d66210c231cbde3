#include "track/hub_source.hpp"

#include <cctype>
#include <ctime>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "hub/errors.hpp"
#include "hub/http.hpp"
#include "hub/progress.hpp"
#include "hub/settings.hpp"

namespace neurarch::track {
namespace {
using nlohmann::json;

// One page of commits or one tree listing; bounded like every other untrusted answer.
constexpr std::uint64_t kMaxApiBytes = 16ull << 20;

bool valid_id(const std::string& id) {
  const auto slash = id.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == id.size() || id.find('/', slash + 1) != std::string::npos) return false;
  for (char c : id)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/')) return false;
  return id.find("..") == std::string::npos;
}

}  // namespace

std::int64_t parse_hub_time(const std::string& text) {
  std::tm tm{};
  if (text.size() < 19 || !strptime(text.substr(0, 19).c_str(), "%Y-%m-%dT%H:%M:%S", &tm)) return 0;
  return static_cast<std::int64_t>(timegm(&tm));
}

struct HubSource::Impl {
  std::string repo, revision;
  HubSourceOptions options;
  hub::Settings settings;
  hub::Progress progress{nullptr};
  std::unique_ptr<hub::HttpClient> http;
  std::optional<std::string> tip;

  json get_json(const std::string& url, const std::string& what) {
    const hub::Response r = http->get({url, {}, kMaxApiBytes});
    hub::FetchContext ctx{repo, revision, what, &settings, "the tracker needs the Hub for this"};
    if (hub::check(r, ctx) != hub::Failure::None)
      throw Error(ErrorKind::NotFound, repo + "@" + revision, fmt::format("the Hub has no such model or revision ({})", what));
    json j = json::parse(r.body, nullptr, false);
    if (j.is_discarded()) throw Error(ErrorKind::InvalidInput, url, "the Hub's answer is not JSON");
    return j;
  }

  std::string commits_url(std::size_t page) const {
    return fmt::format("{}/api/models/{}/commits/{}?p={}", settings.endpoint, repo, hub::url_encode(revision, false), page);
  }
};

HubSource::HubSource(std::string repo, std::string revision, HubSourceOptions options) : impl_(std::make_unique<Impl>()) {
  if (!valid_id(repo)) throw Error(ErrorKind::InvalidInput, repo, "not a Hub model id (org/name)");
  impl_->repo = std::move(repo);
  impl_->revision = revision.empty() ? "main" : std::move(revision);
  impl_->options = std::move(options);
  impl_->settings = hub::resolve_settings(impl_->options.hub);
  if (impl_->settings.offline)
    throw Error(ErrorKind::Io, impl_->repo, "tracking through the Hub needs the network (offline mode is set); use a local clone");
  impl_->http = std::make_unique<hub::HttpClient>(impl_->settings, impl_->progress);
}

HubSource::~HubSource() = default;

std::string HubSource::url() const { return fmt::format("{}/{}", impl_->settings.endpoint, impl_->repo); }

std::string HubSource::tip() {
  if (!impl_->tip) {
    const json page = impl_->get_json(impl_->commits_url(0), "the commit list");
    if (!page.is_array() || page.empty() || !page[0].contains("id") || !page[0]["id"].is_string())
      throw Error(ErrorKind::InvalidInput, impl_->repo, "the Hub's commit list is empty or malformed");
    impl_->tip = page[0]["id"].get<std::string>();
  }
  return *impl_->tip;
}

std::vector<SourceCommit> HubSource::commits_since(const std::function<bool(const std::string&)>& known) {
  std::vector<SourceCommit> newest_first;
  bool stopped = false;
  for (std::size_t p = 0; p < impl_->options.max_pages && !stopped; ++p) {
    const json page = impl_->get_json(impl_->commits_url(p), "the commit list");
    if (!page.is_array()) throw Error(ErrorKind::InvalidInput, impl_->repo, "the Hub's commit list is not an array");
    if (page.empty()) break;
    for (const auto& c : page) {
      if (!c.is_object() || !c.contains("id") || !c["id"].is_string()) continue;
      const std::string id = c["id"].get<std::string>();
      // The list follows the revision's history, so each entry is the previous one's parent.
      if (!newest_first.empty()) newest_first.back().parent = id;
      if (known(id)) {
        stopped = true;
        break;
      }
      SourceCommit sc;
      sc.commit = id;
      sc.title = c.value("title", std::string());
      sc.time = parse_hub_time(c.value("date", std::string()));
      if (c.contains("authors") && c["authors"].is_array() && !c["authors"].empty() && c["authors"][0].is_object())
        sc.author = c["authors"][0].value("user", std::string());
      newest_first.push_back(std::move(sc));
    }
  }
  return {newest_first.rbegin(), newest_first.rend()};
}

std::vector<SourceFile> HubSource::files(const std::string& commit) {
  const json tree = impl_->get_json(fmt::format("{}/api/models/{}/tree/{}", impl_->settings.endpoint, impl_->repo, commit),
                                    "the file list of " + commit);
  if (!tree.is_array()) throw Error(ErrorKind::InvalidInput, impl_->repo, "the Hub's file list is not an array");
  std::vector<SourceFile> out;
  for (const auto& e : tree) {
    if (!e.is_object() || e.value("type", std::string()) != "file" || !e.contains("path")) continue;
    SourceFile f;
    f.path = e.value("path", std::string());
    f.blob = e.value("oid", std::string());
    f.size = e.value("size", std::int64_t{0});
    if (e.contains("lfs") && e["lfs"].is_object()) {
      const std::string oid = e["lfs"].value("oid", std::string());
      f.lfs = LfsPointer{oid.starts_with("sha256:") ? oid : "sha256:" + oid, e["lfs"].value("size", std::int64_t{0})};
    }
    if (!f.path.empty() && f.path.find('/') == std::string::npos) out.push_back(std::move(f));
  }
  return out;
}

std::string HubSource::read(const std::string& commit, const SourceFile& file, std::uint64_t max_bytes) {
  const std::string where = fmt::format("{}@{}", file.path, commit.substr(0, 12));
  if (static_cast<std::uint64_t>(file.size) > max_bytes)
    throw Error(ErrorKind::InvalidInput, where, fmt::format("{} bytes, more than the {} read for this kind of file", file.size, max_bytes));
  const std::string url = fmt::format("{}/{}/resolve/{}/{}", impl_->settings.endpoint, impl_->repo, commit,
                                      hub::url_encode(file.path, true));
  const hub::Response r = impl_->http->get({url, {}, max_bytes});
  hub::FetchContext ctx{impl_->repo, commit, file.path, &impl_->settings, "the tracker needs the Hub for this"};
  if (hub::check(r, ctx) != hub::Failure::None) throw Error(ErrorKind::NotFound, where, "the Hub does not serve this file");
  return r.body;
}

}  // namespace neurarch::track
