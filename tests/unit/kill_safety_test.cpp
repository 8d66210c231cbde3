// `kill -9` of `track` in the middle of a history and of `serve` in the middle of shares, then a
// rerun: no revision lost or duplicated, no share lost, and SQLite's integrity check passes. The
// stores write in WAL mode inside transactions, so a killed process leaves the last commit whole.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "db/sqlite.hpp"
#include "support/scripted_repo.hpp"

extern char** environ;

namespace neurarch {
namespace {
namespace fs = std::filesystem;
using testing::run_shell;
using testing::shell_quote;

// A child process of neurarch-trace with `args`, its stderr in `log`.
pid_t spawn(const std::vector<std::string>& args, const fs::path& log) {
  std::vector<std::string> argv_storage{NEURARCH_TRACE_BIN};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, 2, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  EXPECT_EQ(rc, 0);
  return pid;
}

int wait_exit(pid_t pid, bool& killed) {
  int status = 0;
  waitpid(pid, &status, 0);
  killed = WIFSIGNALED(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::int64_t count(const fs::path& db, const std::string& table) {
  try {
    db::Database d(db.string());
    auto st = d.prepare("SELECT COUNT(*) FROM " + table);
    st.step();
    return st.column_int(0);
  } catch (const std::exception&) {
    return 0;  // not created yet
  }
}

std::string integrity(const fs::path& db) {
  db::Database d(db.string());
  auto st = d.prepare("PRAGMA integrity_check");
  st.step();
  return st.column_text(0);
}

// Read from the file's header, not through a connection (db::Database would switch it to WAL itself):
// bytes 18 and 19 are 2 in a database in WAL mode, 1 in one with a rollback journal.
std::string journal_mode(const fs::path& db) {
  std::ifstream in(db, std::ios::binary);
  char header[20] = {};
  in.read(header, sizeof header);
  if (!in) return "unreadable";
  return header[18] == 2 && header[19] == 2 ? "wal" : "rollback";
}

// (seq, commit) of every stored revision, and the number of changes and of advisories.
struct Revisions {
  std::vector<std::pair<std::int64_t, std::string>> seq_commit;
  std::int64_t changes = 0, advisories = 0;
  bool operator==(const Revisions&) const = default;
};

Revisions revisions(const fs::path& db) {
  Revisions out;
  try {
    db::Database d(db.string());
    auto st = d.prepare("SELECT seq, commit_id FROM track_revisions ORDER BY seq");
    while (st.step()) out.seq_commit.emplace_back(st.column_int(0), st.column_text(1));
  } catch (const std::exception&) {
    return out;  // killed before its schema was created
  }
  out.changes = count(db, "track_changes");
  out.advisories = count(db, "track_advisories");
  return out;
}

// A history of `n` commits, each editing config.json, made with git fast-import (one process).
void make_history(const fs::path& dir, int n) {
  run_shell("git init -q -b main " + shell_quote(dir.string()));
  std::string stream;
  for (int i = 0; i < n; ++i) {
    const std::string config = R"({"model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": 64,
 "intermediate_size": )" + std::to_string(64 + i) + R"(, "num_hidden_layers": 2, "num_attention_heads": 4,
 "vocab_size": 1000, "max_position_embeddings": 128})";
    stream += "commit refs/heads/main\ncommitter T <t@example.com> " + std::to_string(1704067200 + i) + " +0000\n";
    const std::string message = "step " + std::to_string(i);
    stream += "data " + std::to_string(message.size()) + "\n" + message + "\n";
    stream += "M 644 inline config.json\ndata " + std::to_string(config.size()) + "\n" + config + "\n";
  }
  std::ofstream(dir / "stream") << stream;
  run_shell("cd " + shell_quote(dir.string()) + " && git fast-import --quiet < stream && git checkout -q main");
}

TEST(KillSafety, TrackKilledMidHistoryLosesAndDuplicatesNothing) {
  const fs::path dir = fs::temp_directory_path() / ("neurarch_kill_track_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path repo = dir / "repo";
  constexpr int kCommits = 600;
  make_history(repo, kCommits);
  const auto track = [&](const fs::path& db) {
    return spawn({"track", repo.string(), "--id", "org/model", "--db", db.string(), "--progress", "never"}, dir / "log");
  };

  bool killed = false;
  ASSERT_EQ(wait_exit(track(dir / "reference.db"), killed), 0);
  EXPECT_EQ(journal_mode(dir / "reference.db"), "wal");  // before this test opens it
  const auto reference = revisions(dir / "reference.db");
  ASSERT_EQ(reference.seq_commit.size(), static_cast<std::size_t>(kCommits));

  const fs::path db = dir / "killed.db";
  int kills_mid_history = 0;
  const auto check_prefix = [&] {
    EXPECT_EQ(integrity(db), "ok");
    const auto partial = revisions(db);
    if (killed && partial.seq_commit.size() < static_cast<std::size_t>(kCommits)) ++kills_mid_history;
    // What survived is a prefix of the full history: nothing skipped, nothing twice.
    ASSERT_LE(partial.seq_commit.size(), reference.seq_commit.size());
    for (std::size_t i = 0; i < partial.seq_commit.size(); ++i) ASSERT_EQ(partial.seq_commit[i], reference.seq_commit[i]) << i;
  };
  // Killed at fixed moments of its start (opening and creating the database, walking the history,
  // inside its first transaction): whatever a kill interrupts, the next run starts cleanly.
  for (const int ms : {0, 3, 10, 30}) {
    const pid_t pid = track(db);
    std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    ::kill(pid, SIGKILL);
    wait_exit(pid, killed);
    if (fs::exists(db)) check_prefix();
  }
  // Killed as soon as a run's first transaction is visible (so inside its second), three times over;
  // each rerun continues.
  for (int round = 0; round < 3; ++round) {
    const auto before = count(db, "track_revisions");
    const pid_t pid = track(db);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (count(db, "track_revisions") <= before && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ::kill(pid, SIGKILL);
    wait_exit(pid, killed);
    check_prefix();
  }
  EXPECT_GT(kills_mid_history, 0) << "every run finished before it was killed; the history is too short";
  ASSERT_EQ(wait_exit(track(db), killed), 0);
  EXPECT_EQ(integrity(db), "ok");
  const auto rerun = revisions(db);
  EXPECT_EQ(rerun.seq_commit, reference.seq_commit);
  EXPECT_EQ(rerun.changes, reference.changes);
  EXPECT_EQ(rerun.advisories, reference.advisories);
  fs::remove_all(dir);
}

TEST(KillSafety, ServeKilledMidShareLosesNoAnsweredShare) {
  const fs::path dir = fs::temp_directory_path() / ("neurarch_kill_serve_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path db = dir / "share.db";
  const auto serve = [&](int& port) {
    const fs::path log = dir / "serve.log";
    const pid_t pid = spawn({"serve", "--port", "0", "--db", db.string(), "--rate-limit", "1000000"}, log);
    port = 0;
    for (int i = 0; i < 3000 && port == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::ifstream in(log);
      std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (const auto at = text.find("http://127.0.0.1:"); at != std::string::npos)
        port = std::atoi(text.c_str() + at + 17);
    }
    return pid;
  };

  int port = 0;
  pid_t pid = serve(port);
  ASSERT_GT(port, 0);
  // Four clients share distinct reports until the server is killed under them.
  std::mutex mutex;
  std::map<std::string, std::string> answered;  // id -> body
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int c = 0; c < 4; ++c)
    clients.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", port);
      for (int i = 0; !stop; ++i) {
        const std::string body = R"({"model": "gpt2", "batch": )" + std::to_string(1 + c + 4 * i) + "}";
        const auto res = client.Post("/api/v1/share", body, "application/json");
        if (!res) break;
        if (res->status == 201) {
          std::lock_guard lock(mutex);
          answered[nlohmann::json::parse(res->body)["id"].get<std::string>()] = body;
        }
      }
    });
  while (true) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::lock_guard lock(mutex);
    if (answered.size() >= 24) break;
  }
  ::kill(pid, SIGKILL);
  bool killed = false;
  wait_exit(pid, killed);
  stop = true;
  for (auto& t : clients) t.join();
  EXPECT_TRUE(killed);
  EXPECT_EQ(journal_mode(db), "wal");  // before this test opens it
  EXPECT_EQ(integrity(db), "ok");

  // Every share the server answered 201 is there after the kill, and sharing again adds no row.
  pid = serve(port);
  ASSERT_GT(port, 0);
  httplib::Client client("127.0.0.1", port);
  for (const auto& [id, body] : answered) EXPECT_EQ(client.Get("/p/" + id + ".json")->status, 200) << id;
  const auto rows = count(db, "shared_reports");
  EXPECT_GE(rows, static_cast<std::int64_t>(answered.size()));
  for (const auto& [id, body] : answered) {
    const auto res = client.Post("/api/v1/share", body, "application/json");
    ASSERT_EQ(res->status, 201);
    EXPECT_EQ(nlohmann::json::parse(res->body)["id"], id);  // content-addressed: the same link
  }
  EXPECT_EQ(count(db, "shared_reports"), rows);
  ::kill(pid, SIGTERM);
  wait_exit(pid, killed);
  EXPECT_EQ(integrity(db), "ok");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace neurarch
