#pragma once
// Real git repositories with a scripted history for the change tracker's tests, made with the git
// CLI in a temporary folder: fixed names and dates, so the same script gives the same commits.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace neurarch::testing {

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

/// Runs a shell command; throws with the command when it fails.
inline std::string run_shell(const std::string& command) {
  const std::string full = command + " 2>&1";
  FILE* pipe = ::popen(full.c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run: " + command);
  std::string output;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = ::pclose(pipe);
  if (status != 0) throw std::runtime_error("failed (" + std::to_string(status) + "): " + command + "\n" + output);
  return output;
}

/// A Git LFS pointer of a file whose sha256 is `hex64` (padded/cut to 64 hex digits).
inline std::string lfs_pointer(std::string hex64, std::int64_t size) {
  hex64.resize(64, '0');
  return "version https://git-lfs.github.com/spec/v1\noid sha256:" + hex64 + "\nsize " + std::to_string(size) + "\n";
}

class ScriptedRepo {
 public:
  explicit ScriptedRepo(const std::string& name)
      : dir_(std::filesystem::temp_directory_path() / ("neurarch_track_" + name + "_" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    git("init -q -b main");
  }
  ~ScriptedRepo() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScriptedRepo(const ScriptedRepo&) = delete;
  ScriptedRepo& operator=(const ScriptedRepo&) = delete;

  const std::filesystem::path& dir() const { return dir_; }

  void write(const std::string& path, const std::string& content) {
    std::ofstream f(dir_ / path, std::ios::binary | std::ios::trunc);
    f << content;
  }
  void remove(const std::string& path) { std::filesystem::remove(dir_ / path); }

  /// Commits everything with a fixed author and the given time; returns the commit id.
  std::string commit(const std::string& message, std::int64_t time) {
    // Built by appending: g++ 12 misreads `"@" + std::to_string(...)` as an overlapping memcpy (-Wrestrict).
    std::string date("@");
    date += std::to_string(time);
    date += " +0000";
    git("add -A");
    run_shell("cd " + shell_quote(dir_.string()) + " && GIT_AUTHOR_DATE=" + shell_quote(date) +
              " GIT_COMMITTER_DATE=" + shell_quote(date) + " git -c user.name=Tester -c user.email=t@example.com " +
              "-c commit.gpgsign=false commit -q --allow-empty -m " + shell_quote(message));
    return head();
  }

  std::string head() {
    std::string out = git("rev-parse HEAD");
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
  }

  std::string git(const std::string& args) { return run_shell("git -C " + shell_quote(dir_.string()) + " " + args); }

 private:
  std::filesystem::path dir_;
};

}  // namespace neurarch::testing
