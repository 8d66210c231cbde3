#include "resolve/resolver.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string_view>
#include <system_error>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>  // fmt::join lives here from fmt 11 on

#include "core/edit_distance.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "resolve/catalogue.hpp"

namespace neurarch::resolve {
namespace {

namespace fs = std::filesystem;
using limits::kMaxConfigBytes;

constexpr std::string_view kStdinOrigin = "<stdin>";
constexpr std::string_view kDefaultRef = "main";
constexpr std::size_t kMinCommitPrefix = 7;  // what git and the Hub UI show as a short hash

// The Hub moved its org-less legacy repos under orgs; both spellings must find the same model.
struct Alias {
  std::string_view canonical;
  std::string_view legacy;
};
constexpr std::array<Alias, 7> kAliases{{
    {"openai-community/gpt2", "gpt2"},
    {"google-bert/bert-base-uncased", "bert-base-uncased"},
    {"FacebookAI/roberta-base", "roberta-base"},
    {"FacebookAI/xlm-roberta-base", "xlm-roberta-base"},
    {"distilbert/distilbert-base-uncased", "distilbert-base-uncased"},
    {"albert/albert-base-v2", "albert-base-v2"},
    {"google-t5/t5-base", "t5-base"},
}};

// ---------------------------------------------------------------- small text helpers

char lower_char(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), lower_char);
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return lower_char(x) == lower_char(y); });
}

bool is_hex(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
}

// SHA-1 today; the Hub may move to SHA-256 as git does.
bool is_commit_hash(std::string_view s) { return (s.size() == 40 || s.size() == 64) && is_hex(s); }

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::string_view name_part(std::string_view id) {
  const auto slash = id.rfind('/');
  return slash == std::string_view::npos ? id : id.substr(slash + 1);
}

std::optional<std::string_view> alias_partner(std::string_view id) {
  for (const auto& alias : kAliases) {
    if (iequals(id, alias.canonical)) return alias.legacy;
    if (iequals(id, alias.legacy)) return alias.canonical;
  }
  return std::nullopt;
}

// ---------------------------------------------------------------- bounded reading

std::string limit_text() { return fmt::format("{} MiB", kMaxConfigBytes >> 20); }

// Stops one chunk past the limit, so an endless stream (a FIFO, /dev/zero) cannot exhaust memory.
std::string read_bounded(std::istream& in, const std::string& where) {
  std::string text;
  std::array<char, 1 << 16> chunk{};
  while (in) {
    in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxConfigBytes) {
      throw Error(ErrorKind::InvalidInput, where,
                  fmt::format("more than the {} a config.json may have", limit_text()));
    }
  }
  if (in.bad()) throw Error(ErrorKind::Io, where, "read failed");
  return text;
}

std::string read_config_file(const fs::path& file) {
  const std::string where = file.string();
  std::error_code ec;
  // Fail before reading a single byte when the size is already known to be absurd.
  if (fs::is_regular_file(file, ec)) {
    const auto size = fs::file_size(file, ec);
    if (!ec && size > kMaxConfigBytes) {
      throw Error(ErrorKind::InvalidInput, where,
                  fmt::format("{} bytes, more than the {} a config.json may have", size, limit_text()));
    }
  } else if (fs::is_directory(file, ec)) {
    throw Error(ErrorKind::InvalidInput, where, "is a folder, expected a config.json file");
  }
  errno = 0;
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    const int err = errno;
    throw Error(ErrorKind::Io, where,
                err != 0 ? "cannot open: " + std::generic_category().message(err) : std::string("cannot open"));
  }
  return read_bounded(in, where);
}

// ---------------------------------------------------------------- stdin and local paths

void reject_revision(const std::string& spec, const ResolveOptions& opts) {
  if (!opts.revision.empty()) {
    throw Error(ErrorKind::InvalidInput, spec,
                fmt::format("--revision {} only applies to Hub model ids, not to a local path or stdin", opts.revision));
  }
}

ResolvedModel from_stdin(const ResolveOptions& opts) {
  std::istream& in = opts.stdin_stream != nullptr ? *opts.stdin_stream : std::cin;
  ResolvedModel model;
  model.id = "-";
  model.source = "stdin";
  model.config_origin = std::string(kStdinOrigin);
  model.config_text = read_bounded(in, model.config_origin);
  return model;
}

std::optional<fs::file_status> existing_path(const std::string& spec) {
  std::error_code ec;
  const fs::file_status status = fs::status(spec, ec);
  if (ec || !fs::exists(status)) return std::nullopt;
  return status;
}

ResolvedModel from_path(const std::string& spec, const fs::file_status& status) {
  const fs::path path(spec);
  ResolvedModel model;
  model.id = spec;
  model.source = "path";
  fs::path config = path;
  if (fs::is_directory(status)) {
    config = path / "config.json";
    std::error_code ec;
    if (!fs::exists(config, ec)) throw Error(ErrorKind::NotFound, path.string(), "folder has no config.json");
    model.model_dir = path;
  } else {
    model.model_dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  }
  model.config_origin = config.string();
  model.config_text = read_config_file(config);
  return model;
}

// Specs shaped like this can only mean a file, so a Hub-style search would just confuse the message.
bool looks_like_path(std::string_view spec) {
  return spec.starts_with('/') || spec.starts_with("./") || spec.starts_with("../") || spec.starts_with('~') ||
         spec.find('\\') != std::string_view::npos || spec.ends_with(".json");
}

// ---------------------------------------------------------------- repo ids and revisions

struct RepoRef {
  std::string id;
  std::string revision;  // "" when the user asked for none
};

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// The Hub's own naming rules; they also make the id safe to splice into a cache folder name,
// whose "--" separators and ".." components would otherwise be ambiguous or escape the cache.
bool is_valid_repo_part(std::string_view part) {
  if (part.empty() || part.size() > 96) return false;
  if (!std::all_of(part.begin(), part.end(), is_name_char)) return false;
  if (part.front() == '-' || part.front() == '.' || part.back() == '-' || part.back() == '.') return false;
  return part.find("--") == std::string_view::npos && part.find("..") == std::string_view::npos;
}

bool is_valid_repo_id(std::string_view id) {
  const auto slash = id.find('/');
  if (slash == std::string_view::npos) return is_valid_repo_part(id);
  return is_valid_repo_part(id.substr(0, slash)) && is_valid_repo_part(id.substr(slash + 1));
}

// A revision becomes a path under refs/, so it must not be able to climb out of it.
bool is_valid_revision(std::string_view rev) {
  if (rev.empty() || rev.size() > 255 || rev.front() == '/' || rev.back() == '/') return false;
  const bool plain_chars = std::all_of(rev.begin(), rev.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '/' || c == '+';
  });
  if (!plain_chars) return false;
  std::size_t start = 0;
  while (start <= rev.size()) {
    const auto end = std::min(rev.find('/', start), rev.size());
    const std::string_view component = rev.substr(start, end - start);
    if (component.empty() || component == "." || component == "..") return false;
    start = end + 1;
  }
  return true;
}

RepoRef split_repo_ref(const std::string& spec, const std::string& option_revision) {
  RepoRef ref{spec, option_revision};
  if (const auto at = spec.rfind('@'); at != std::string::npos) {
    ref.id = spec.substr(0, at);
    const std::string from_spec = spec.substr(at + 1);
    if (from_spec.empty()) throw Error(ErrorKind::InvalidInput, spec, "nothing after '@'; expected a revision");
    if (!option_revision.empty() && option_revision != from_spec) {
      throw Error(ErrorKind::InvalidInput, spec,
                  fmt::format("two revisions given: '@{}' and --revision {}", from_spec, option_revision));
    }
    ref.revision = from_spec;
  }
  // The Hub accepts "refs/pr/1" and the cache stores it as refs/pr/1: strip the prefix once.
  if (ref.revision.starts_with("refs/")) ref.revision.erase(0, 5);
  if (!ref.revision.empty() && !is_valid_revision(ref.revision)) {
    throw Error(ErrorKind::InvalidInput, spec, fmt::format("'{}' is not a valid revision", ref.revision));
  }
  return ref;
}

std::vector<std::string> ids_to_try(const std::string& id) {
  std::vector<std::string> ids{id};
  if (const auto partner = alias_partner(id)) ids.emplace_back(*partner);
  return ids;
}

// ---------------------------------------------------------------- the Hugging Face cache

fs::path repo_cache_dir(const fs::path& root, std::string_view id) {
  std::string name = "models--";
  for (char c : id) {
    if (c == '/') {
      name += "--";
    } else {
      name += c;
    }
  }
  return root / name;
}

std::optional<std::string> commit_from_ref(const fs::path& repo_dir, const std::string& rev) {
  const fs::path ref_file = repo_dir / "refs" / fs::path(rev);
  std::error_code ec;
  if (!fs::is_regular_file(ref_file, ec)) return std::nullopt;
  std::ifstream in(ref_file, std::ios::binary);
  std::string text(128, '\0');  // a hash and a newline; anything longer is not a ref file
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  std::string commit = lowercase(trim(text));
  if (!is_commit_hash(commit)) throw Error(ErrorKind::InvalidInput, ref_file.string(), "does not hold a commit hash");
  return commit;
}

std::vector<std::string> snapshot_commits(const fs::path& repo_dir) {
  std::vector<std::string> commits;
  std::error_code ec;
  for (fs::directory_iterator it(repo_dir / "snapshots", ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory(ec)) commits.push_back(it->path().filename().string());
  }
  std::sort(commits.begin(), commits.end());
  return commits;
}

std::vector<std::string> ref_names(const fs::path& repo_dir) {
  std::vector<std::string> names;
  const fs::path refs = repo_dir / "refs";
  std::error_code ec;
  for (fs::recursive_directory_iterator it(refs, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_regular_file(ec)) names.push_back(it->path().lexically_relative(refs).generic_string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Users paste short hashes from the Hub's web page; accept any unambiguous prefix, as git does.
std::optional<std::string> commit_from_prefix(const fs::path& repo_dir, const std::string& rev,
                                              const std::string& spec) {
  if (rev.size() < kMinCommitPrefix || !is_hex(rev)) return std::nullopt;
  const std::string prefix = lowercase(rev);
  std::vector<std::string> matches;
  for (const auto& commit : snapshot_commits(repo_dir)) {
    if (lowercase(commit).starts_with(prefix)) matches.push_back(commit);
  }
  if (matches.size() > 1) {
    throw Error(ErrorKind::InvalidInput, spec,
                fmt::format("commit prefix '{}' matches {} snapshots in {} ({}); give more digits", rev,
                            matches.size(), (repo_dir / "snapshots").string(), fmt::join(matches, ", ")));
  }
  if (matches.empty()) return std::nullopt;
  return matches.front();
}

std::string describe_cached_revisions(const fs::path& repo_dir, const std::string& rev) {
  const auto refs = ref_names(repo_dir);
  std::string text = fmt::format("refs: {}; {} snapshot(s)", refs.empty() ? "none" : fmt::format("{}", fmt::join(refs, ", ")),
                                 snapshot_commits(repo_dir).size());
  if (is_hex(rev) && rev.size() < kMinCommitPrefix) {
    text += fmt::format("; a commit prefix needs at least {} hex digits", kMinCommitPrefix);
  }
  return text;
}

struct CacheLookup {
  std::optional<ResolvedModel> hit;
  bool repo_cached = false;
  std::string miss;  // why the cache could not answer, for the final message
};

CacheLookup look_in_cache(const fs::path& root, const std::string& id, const std::string& revision,
                          const std::string& spec) {
  CacheLookup out;
  const fs::path repo_dir = repo_cache_dir(root, id);
  std::error_code ec;
  if (!fs::is_directory(repo_dir, ec)) {
    out.miss = fmt::format("{} is not in the Hugging Face cache {}", id, root.string());
    return out;
  }
  out.repo_cached = true;
  const std::string rev = revision.empty() ? std::string(kDefaultRef) : revision;
  std::optional<std::string> commit = commit_from_ref(repo_dir, rev);
  if (!commit) commit = commit_from_prefix(repo_dir, rev, spec);
  if (!commit) {
    out.miss = fmt::format("revision '{}' is not in the Hugging Face cache {} ({})", rev, repo_dir.string(),
                           describe_cached_revisions(repo_dir, rev));
    return out;
  }
  const fs::path snapshot = repo_dir / "snapshots" / *commit;
  const fs::path config = snapshot / "config.json";
  if (!fs::exists(config, ec)) {
    out.miss = fmt::format("revision '{}' (commit {}) in the Hugging Face cache has no {}", rev, *commit,
                           config.string());
    return out;
  }
  ResolvedModel model;
  model.id = id;
  model.revision = *commit;
  model.source = "hf-cache";
  model.config_origin = config.string();
  model.config_text = read_config_file(config);
  model.model_dir = snapshot;
  out.hit = std::move(model);
  return out;
}

std::vector<std::string> cached_repo_ids(const fs::path& root) {
  std::vector<std::string> ids;
  if (root.empty()) return ids;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string folder = it->path().filename().string();
    if (!folder.starts_with("models--")) continue;
    std::string id = folder.substr(8);
    if (const auto sep = id.find("--"); sep != std::string::npos) id.replace(sep, 2, "/");
    if (is_valid_repo_id(id)) ids.push_back(std::move(id));
  }
  return ids;
}

// ---------------------------------------------------------------- the bundled catalogue

const CatalogueEntry* find_catalogue_entry(const std::string& id) {
  const auto& entries = catalogue_entries();
  const auto wanted = ids_to_try(id);
  // Exact spelling first, so case-folding can never pick a different entry than the one named.
  for (const auto& want : wanted) {
    for (const auto& entry : entries) {
      if (entry.id == want) return &entry;
    }
  }
  for (const auto& want : wanted) {
    for (const auto& entry : entries) {
      if (iequals(entry.id, want)) return &entry;
    }
  }
  return nullptr;
}

ResolvedModel from_catalogue(const CatalogueEntry& entry) {
  ResolvedModel model;
  model.id = std::string(entry.id);
  model.source = "catalogue";
  model.config_origin = "catalogue:" + model.id;
  model.config_text = std::string(entry.config_json);
  return model;
}

// ---------------------------------------------------------------- suggestions

std::vector<std::string> known_ids(const fs::path& cache_root) {
  std::vector<std::string> ids;
  for (const auto& entry : catalogue_entries()) ids.emplace_back(entry.id);
  for (auto& id : cached_repo_ids(cache_root)) ids.push_back(std::move(id));
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<std::string> nearest_ids(const std::string& spec, std::size_t n, const fs::path& cache_root) {
  constexpr std::size_t kMaxQuery = 200;  // keeps the quadratic distance cheap on hostile input
  const std::string query = lowercase(std::string_view(spec).substr(0, std::min(spec.rfind('@'), kMaxQuery)));
  const std::string_view query_name = name_part(query);
  // A typo is a few edits; further away it is another model, unless the name was typed in part.
  const std::size_t max_edits = std::max<std::size_t>(2, query_name.size() / 3);

  std::vector<std::pair<std::size_t, std::string>> scored;
  for (auto& id : known_ids(cache_root)) {
    const std::string candidate = lowercase(id);
    const std::size_t score =
        std::min(edit_distance(query, candidate), edit_distance(query_name, name_part(candidate)));
    const bool typed_in_part = query_name.size() >= 3 && candidate.find(query_name) != std::string::npos;
    if (score <= max_edits || typed_in_part) scored.emplace_back(score, std::move(id));
  }
  std::sort(scored.begin(), scored.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < n; ++i) out.push_back(std::move(scored[i].second));
  return out;
}

std::string did_you_mean(const std::string& id, const fs::path& cache_root) {
  const auto near = nearest_ids(id, 3, cache_root);
  if (near.empty()) return {};
  return fmt::format("; did you mean {}?", fmt::join(near, ", "));
}

// ---------------------------------------------------------------- the not-found message

std::string path_checked(const std::string& spec) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(spec, ec);
  return fmt::format("no file or folder {}", ec ? spec : absolute.string());
}

std::string hub_note(const ResolveOptions& opts) {
  if (opts.offline) return "; the Hub was not asked (offline)";
  if (opts.hub != nullptr) return "; the Hub has no such model";
  return {};
}

std::string not_a_model_message(const std::string& spec, const fs::path& cache_root) {
  return fmt::format("not found: {}, and not a Hub model id (name or org/name){}", path_checked(spec),
                     did_you_mean(spec, cache_root));
}

std::string not_found_message(const std::string& spec, const RepoRef& ref, const std::string& cache_miss,
                              bool repo_cached, const fs::path& cache_root, const ResolveOptions& opts) {
  std::string catalogue_note = "not in the bundled catalogue";
  const bool in_catalogue = find_catalogue_entry(ref.id) != nullptr;
  if (!ref.revision.empty()) {
    catalogue_note = in_catalogue ? "the bundled catalogue has only the default revision, and a revision was requested"
                                  : "the bundled catalogue only answers when no revision is requested";
  }
  const bool id_is_known = repo_cached || in_catalogue;
  return fmt::format("not found: {}; {}; {}{}{}", path_checked(spec), cache_miss, catalogue_note, hub_note(opts),
                     id_is_known ? std::string() : did_you_mean(ref.id, cache_root));
}

// ---------------------------------------------------------------- hub ids

ResolvedModel checked_hub_result(ResolvedModel model, const std::string& spec) {
  // The Hub client is a seam for code we do not control; hold it to the same limit as files.
  if (model.config_text.size() > kMaxConfigBytes) {
    throw Error(ErrorKind::InvalidInput, model.config_origin.empty() ? spec : model.config_origin,
                fmt::format("more than the {} a config.json may have", limit_text()));
  }
  return model;
}

ResolvedModel resolve_repo(const std::string& spec, const ResolveOptions& opts) {
  const fs::path cache_root = opts.hub_cache.value_or(default_hub_cache());
  if (looks_like_path(spec)) throw Error(ErrorKind::NotFound, spec, "no such file or folder");
  const RepoRef ref = split_repo_ref(spec, opts.revision);
  if (!is_valid_repo_id(ref.id)) throw Error(ErrorKind::NotFound, spec, not_a_model_message(spec, cache_root));

  std::string cache_miss = "no Hugging Face cache folder is known (set HF_HUB_CACHE or HF_HOME)";
  bool repo_cached = false;
  if (!cache_root.empty()) {
    cache_miss.clear();
    for (const auto& id : ids_to_try(ref.id)) {
      CacheLookup found = look_in_cache(cache_root, id, ref.revision, spec);
      if (found.hit) return std::move(*found.hit);
      // Report the repo the cache does hold over one it does not: that is the actionable miss.
      if (cache_miss.empty() || (found.repo_cached && !repo_cached)) cache_miss = found.miss;
      repo_cached = repo_cached || found.repo_cached;
    }
  }
  // A requested revision must come from somewhere that has it: the catalogue has one unnamed revision.
  if (ref.revision.empty()) {
    if (const CatalogueEntry* entry = find_catalogue_entry(ref.id)) return from_catalogue(*entry);
  }
  if (!opts.offline && opts.hub != nullptr) {
    if (auto fetched = opts.hub->fetch(ref.id, ref.revision)) return checked_hub_result(std::move(*fetched), spec);
  }
  throw Error(ErrorKind::NotFound, spec, not_found_message(spec, ref, cache_miss, repo_cached, cache_root, opts));
}

// ---------------------------------------------------------------- environment

std::optional<std::string> env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::optional<std::string> home_folder() {
  if (auto home = env("HOME")) return home;
  return env("USERPROFILE");
}

// huggingface_hub expands "~" in these variables, so a quoted "~/hf" must work here too.
fs::path expand_home(const std::string& value) {
  if (value == "~" || value.starts_with("~/")) {
    if (const auto home = home_folder()) return fs::path(*home) / value.substr(std::min<std::size_t>(2, value.size()));
  }
  return value;
}

}  // namespace

fs::path default_hub_cache() {
  if (const auto cache = env("HF_HUB_CACHE")) return expand_home(*cache);
  if (const auto legacy = env("HUGGINGFACE_HUB_CACHE")) return expand_home(*legacy);
  if (const auto hf_home = env("HF_HOME")) return expand_home(*hf_home) / "hub";
  if (const auto xdg = env("XDG_CACHE_HOME")) return fs::path(*xdg) / "huggingface" / "hub";
  if (const auto home = home_folder()) return fs::path(*home) / ".cache" / "huggingface" / "hub";
  return {};
}

ResolvedModel resolve(const std::string& spec, const ResolveOptions& opts) {
  if (spec.empty()) throw Error(ErrorKind::InvalidInput, "MODEL", "empty model name");
  if (spec == "-") {
    reject_revision(spec, opts);
    return from_stdin(opts);
  }
  if (const auto status = existing_path(spec)) {
    reject_revision(spec, opts);
    return from_path(spec, *status);
  }
  return resolve_repo(spec, opts);
}

ResolvedModel resolve_repo_id(const std::string& spec, const ResolveOptions& opts) { return resolve_repo(spec, opts); }

bool is_hub_repo_id(std::string_view id) { return is_valid_repo_id(id); }

std::vector<std::string> known_repo_ids(const fs::path& cache_root) { return known_ids(cache_root); }

std::vector<std::string> nearest_known_ids(const std::string& spec, std::size_t n) {
  return nearest_ids(spec, n, default_hub_cache());
}

}  // namespace neurarch::resolve
