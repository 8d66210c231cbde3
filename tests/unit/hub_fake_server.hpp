#pragma once
// A fake Hugging Face Hub on 127.0.0.1 for the Hub client tests: resolve URLs (LFS files redirect
// to a CDN path that honours Range), X-Repo-Commit / ETag / X-Linked-* headers, the Hub's
// X-Error-Code answers, /api/models, and injected faults (429, truncation, stalls). It counts
// requests and the body bytes it serves, so tests can prove what was (not) downloaded.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <httplib.h>

#include <gtest/gtest.h>

namespace neurarch::hub::testing {

inline constexpr const char* kGoodToken = "hf_good_token";

struct FakeFile {
  std::string content;
  bool lfs = false;  // LFS files redirect to /cdn/<etag>, as the Hub redirects to its CDN
  std::string etag;
};

struct FakeRepo {
  std::string commit;
  std::map<std::string, FakeFile> files;
  bool gated = false;
  std::string info_json;  // "" -> the API answers 404
};

// Builds a safetensors file: one F32 tensor per (name, count), data all zeros.
inline std::string safetensors_file(const std::vector<std::pair<std::string, std::size_t>>& tensors) {
  std::string header = "{\"__metadata__\":{\"format\":\"pt\"}";
  std::size_t offset = 0;
  for (const auto& [name, count] : tensors) {
    header += ",\"" + name + "\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(count) +
              "],\"data_offsets\":[" + std::to_string(offset) + "," + std::to_string(offset + 4 * count) + "]}";
    offset += 4 * count;
  }
  header += "}";
  while (header.size() % 8 != 0) header += ' ';
  std::string out(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + std::string(offset, '\0');
}

inline std::uint64_t header_bytes_of(const std::string& file) {
  std::uint64_t length = 0;
  for (std::size_t i = 0; i < 8; ++i) length |= std::uint64_t{static_cast<unsigned char>(file[i])} << (8 * i);
  return 8 + length;
}

class FakeHub {
 public:
  FakeHub() {
    server_.Get(R"(/api/models/(.+)/revision/([^/]+))",
                [this](const httplib::Request& req, httplib::Response& res) { api(req, res); });
    server_.Get(R"(/cdn/([0-9a-f]+))", [this](const httplib::Request& req, httplib::Response& res) { cdn(req, res); });
    server_.Get(R"(/(.+)/resolve/([^/]+)/(.+))",
                [this](const httplib::Request& req, httplib::Response& res) { resolve(req, res); });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ <= 0) throw std::runtime_error("fake hub: cannot bind a loopback port");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~FakeHub() {
    server_.stop();
    thread_.join();
  }
  FakeHub(const FakeHub&) = delete;
  FakeHub& operator=(const FakeHub&) = delete;

  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void add(const std::string& id, FakeRepo repo) {
    std::lock_guard lock(mu_);
    repos_[id] = std::move(repo);
  }
  void rate_limit(int times, int retry_after_s) {
    std::lock_guard lock(mu_);
    rate_limited_ = times;
    retry_after_s_ = retry_after_s;
  }
  void truncate(const std::string& file, int times) {
    std::lock_guard lock(mu_);
    truncate_[file] = times;
  }
  // The host LFS redirects name; "localhost" makes the CDN another origin than the Hub.
  void cdn_host(const std::string& host) {
    std::lock_guard lock(mu_);
    cdn_host_ = host;
  }
  void stall(const std::string& file, std::chrono::milliseconds delay) {
    std::lock_guard lock(mu_);
    stall_[file] = delay;
  }

  int requests() const { return requests_.load(); }
  int requests_for(const std::string& file) const {
    std::lock_guard lock(mu_);
    const auto it = requests_by_file_.find(file);
    return it == requests_by_file_.end() ? 0 : it->second;
  }
  std::uint64_t bytes_served(const std::string& file) const {
    std::lock_guard lock(mu_);
    const auto it = bytes_by_file_.find(file);
    return it == bytes_by_file_.end() ? 0 : it->second;
  }
  int resolves_for(const std::string& file) const {
    std::lock_guard lock(mu_);
    const auto it = resolves_by_file_.find(file);
    return it == resolves_by_file_.end() ? 0 : it->second;
  }
  std::vector<std::string> authorizations() const {
    std::lock_guard lock(mu_);
    return authorizations_;
  }
  std::vector<std::string> cdn_authorizations() const {
    std::lock_guard lock(mu_);
    return cdn_authorizations_;
  }

 private:
  // Counted in the handler, before the response is written, so the client cannot see the
  // response before the count.
  void count(const std::string& file, std::uint64_t bytes) {
    std::lock_guard lock(mu_);
    ++requests_by_file_[file];
    bytes_by_file_[file] += bytes;
  }

  static std::uint64_t served_length(const httplib::Request& req, std::uint64_t size) {
    if (req.ranges.empty()) return size;
    const auto [first, last] = req.ranges.front();
    const auto end = last < 0 ? size : std::min<std::uint64_t>(static_cast<std::uint64_t>(last) + 1, size);
    return end > static_cast<std::uint64_t>(first) ? end - static_cast<std::uint64_t>(first) : 0;
  }

  const FakeFile* find_blob(const std::string& etag, std::string& name) const {
    for (const auto& [id, repo] : repos_) {
      for (const auto& [file, f] : repo.files) {
        if (f.etag == etag) {
          name = file;
          return &f;
        }
      }
    }
    return nullptr;
  }

  static void error(httplib::Response& res, int status, const std::string& code, const std::string& message) {
    res.status = status;
    if (!code.empty()) res.set_header("X-Error-Code", code);
    res.set_header("X-Error-Message", message);
    res.set_content("{\"error\":\"" + message + "\"}", "application/json");
  }

  // Answers gate and existence checks the way the Hub does; false when it answered.
  bool admit(const httplib::Request& req, httplib::Response& res, const FakeRepo* repo) {
    const std::string auth = req.get_header_value("Authorization");
    {
      std::lock_guard lock(mu_);
      authorizations_.push_back(auth);
    }
    if (repo == nullptr) {
      // Without a token the Hub answers 401 for a missing repo: it might be private.
      error(res, auth.empty() ? 401 : 404, "RepoNotFound", "Repository not found");
      return false;
    }
    if (repo->gated && auth != std::string("Bearer ") + kGoodToken) {
      error(res, auth.empty() ? 401 : 403, "GatedRepo", "Access to this model is restricted");
      return false;
    }
    return true;
  }

  void api(const httplib::Request& req, httplib::Response& res) {
    ++requests_;
    std::lock_guard lock(mu_);
    const auto it = repos_.find(req.matches[1]);
    if (it == repos_.end() || it->second.info_json.empty()) {
      error(res, 404, "RepoNotFound", "Repository not found");
      return;
    }
    res.set_content(it->second.info_json, "application/json");
  }

  void cdn(const httplib::Request& req, httplib::Response& res) {
    ++requests_;
    std::string name;
    std::string content;
    {
      std::lock_guard lock(mu_);
      cdn_authorizations_.push_back(req.get_header_value("Authorization"));
      const FakeFile* f = find_blob(req.matches[1], name);
      if (f == nullptr) {
        res.status = 404;
        return;
      }
      content = f->content;
    }
    count(name, served_length(req, content.size()));
    res.set_header("ETag", "\"cdn-" + std::string(req.matches[1]) + "\"");
    res.set_content(content, "application/octet-stream");  // httplib slices it to the Range
  }

  void resolve(const httplib::Request& req, httplib::Response& res) {
    ++requests_;
    const std::string id = req.matches[1], rev = req.matches[2], file = req.matches[3];
    std::optional<FakeRepo> repo;
    std::chrono::milliseconds stall{0};
    bool truncate = false;
    std::string cdn;
    {
      std::lock_guard lock(mu_);
      ++resolves_by_file_[file];
      cdn = "http://" + cdn_host_ + ":" + std::to_string(port_);
      if (rate_limited_ > 0) {
        --rate_limited_;
        res.set_header("Retry-After", std::to_string(retry_after_s_));
        error(res, 429, "", "Too many requests");
        return;
      }
      if (const auto it = repos_.find(id); it != repos_.end()) repo = it->second;
      if (const auto it = stall_.find(file); it != stall_.end()) stall = it->second;
      if (auto it = truncate_.find(file); it != truncate_.end() && it->second > 0) {
        --it->second;
        truncate = true;
      }
    }
    if (!admit(req, res, repo ? &*repo : nullptr)) return;
    if (stall.count() > 0) std::this_thread::sleep_for(stall);
    if (rev != "main" && rev != repo->commit) {
      error(res, 404, "RevisionNotFound", "Invalid rev id: " + rev);
      return;
    }
    res.set_header("X-Repo-Commit", repo->commit);
    const auto it = repo->files.find(file);
    if (it == repo->files.end()) {
      error(res, 404, "EntryNotFound", "Entry not found");
      return;
    }
    const FakeFile& f = it->second;
    if (f.lfs) {
      res.set_header("X-Linked-Etag", "\"" + f.etag + "\"");
      res.set_header("X-Linked-Size", std::to_string(f.content.size()));
      res.set_redirect(cdn + "/cdn/" + f.etag, 302);
      return;
    }
    res.set_header("ETag", "\"" + f.etag + "\"");
    if (truncate) {
      // Promises the whole body, sends half, then drops the connection.
      count(file, f.content.size() / 2);
      const std::string content = f.content;
      res.set_content_provider(content.size(), "application/json",
                               [content](std::size_t offset, std::size_t length, httplib::DataSink& sink) {
                                 sink.write(content.data() + offset, length / 2);
                                 return false;
                               });
      return;
    }
    count(file, served_length(req, f.content.size()));
    res.set_content(f.content, "application/json");
  }

  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mu_;
  std::map<std::string, FakeRepo> repos_;
  int rate_limited_ = 0;
  int retry_after_s_ = 0;
  std::map<std::string, int> truncate_;
  std::map<std::string, std::chrono::milliseconds> stall_;
  std::atomic<int> requests_{0};
  std::map<std::string, int> requests_by_file_;
  std::map<std::string, std::uint64_t> bytes_by_file_;
  std::map<std::string, int> resolves_by_file_;
  std::vector<std::string> authorizations_;
  std::vector<std::string> cdn_authorizations_;
  std::string cdn_host_ = "127.0.0.1";
};

// Sets or clears environment variables for one test and puts the old values back.
class ScopedEnv {
 public:
  ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> values) {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name);
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      if (value != nullptr) {
        ::setenv(name, value, 1);
      } else {
        ::unsetenv(name);
      }
    }
  }
  ~ScopedEnv() {
    for (const auto& [name, value] : saved_) {
      if (value) {
        ::setenv(name.c_str(), value->c_str(), 1);
      } else {
        ::unsetenv(name.c_str());
      }
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A fresh folder per test, so parallel ctest runs cannot collide.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = std::filesystem::temp_directory_path() /
            ("neurarch-hub-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace neurarch::hub::testing
