// Speed targets of the change tracker (issue 7): measured here, never in unit tests.
//   a 1,000-revision history tracked from scratch          seconds
//   an incremental re-run: nothing new / ten new revisions  milliseconds
// The history is a 7B-class Llama repository (291 tensors rebuilt per config change) whose every
// revision edits config.json; every 20th swaps an LFS pointer, every 50th edits the chat template.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "track/git_source.hpp"
#include "track/store.hpp"
#include "track/tracker.hpp"

namespace {
namespace fs = std::filesystem;
using nlohmann::json;

constexpr int kRevisions = 1000;

std::string data_block(const std::string& bytes) { return fmt::format("data {}\n{}\n", bytes.size(), bytes); }

std::string modify(const std::string& path, const std::string& bytes) {
  return fmt::format("M 100644 inline {}\n{}", path, data_block(bytes));
}

std::string pointer(int version) {
  return fmt::format("version https://git-lfs.github.com/spec/v1\noid sha256:{:064x}\nsize {}\n", version + 1,
                     13476839424 + version);
}

// One `git fast-import` stream: a thousand commits cost one process, not thousands.
void build_history(const fs::path& dir) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (std::system(fmt::format("git init -q -b main {}", dir.string()).c_str()) != 0) throw std::runtime_error("git init");
  FILE* git = ::popen(fmt::format("git -C {} fast-import --quiet", dir.string()).c_str(), "w");
  if (!git) throw std::runtime_error("git fast-import");
  json config = {{"architectures", {"LlamaForCausalLM"}}, {"model_type", "llama"}, {"hidden_size", 4096},
                 {"intermediate_size", 11008}, {"num_hidden_layers", 32}, {"num_attention_heads", 32},
                 {"num_key_value_heads", 32}, {"vocab_size", 32000}, {"max_position_embeddings", 4096},
                 {"rms_norm_eps", 1e-5}, {"torch_dtype", "float16"}, {"use_cache", true}};
  for (int i = 0; i < kRevisions; ++i) {
    std::string files;
    config["revision_note"] = i;                                  // a key-level change every revision
    if (i % 10 == 5) config["intermediate_size"] = 11008 + 256 * (i % 3);  // and a graph change every tenth
    files += modify("config.json", config.dump(2));
    if (i == 0 || i % 20 == 0) files += modify("model.safetensors", pointer(i / 20));
    if (i == 0 || i % 50 == 0)
      files += modify("tokenizer_config.json",
                      json{{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"chat_template", fmt::format("{{{{ messages }}}} v{}", i / 50)}}.dump());
    const std::string when = fmt::format("{} +0000", 1704067200 + i * 3600);
    const std::string commit = fmt::format("commit refs/heads/main\ncommitter Bench <b@example.com> {}\n{}{}", when,
                                           data_block(fmt::format("revision {}", i)), files);
    std::fwrite(commit.data(), 1, commit.size(), git);
  }
  if (::pclose(git) != 0) throw std::runtime_error("git fast-import failed");
}

// Built once per process and removed when it exits.
struct History {
  fs::path dir = fs::temp_directory_path() / fmt::format("neurarch_track_bench_{}", ::getpid());
  History() { build_history(dir); }
  ~History() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  History(const History&) = delete;
  History& operator=(const History&) = delete;
};

const fs::path& history() {
  static const History h;
  return h.dir;
}

std::size_t track_into(const std::string& db, const std::string& ref) {
  neurarch::track::Store store(db);
  neurarch::track::GitSource source(history(), ref);
  return neurarch::track::track(source, store, {"bench/llama-7b"}).new_revisions;
}

void remove_db(const fs::path& db) {
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix);
}

void BM_TrackThousandRevisions(benchmark::State& state) {
  const fs::path db = history().parent_path() / fmt::format("neurarch_track_bench_full_{}.db", ::getpid());
  for (auto _ : state) {
    state.PauseTiming();
    remove_db(db);
    state.ResumeTiming();
    if (track_into(db.string(), "main") != kRevisions) state.SkipWithError("not every revision was tracked");
  }
  state.counters["revisions"] = kRevisions;
  remove_db(db);
}
BENCHMARK(BM_TrackThousandRevisions)->Unit(benchmark::kSecond)->Iterations(1);

void BM_TrackIncrementalNothingNew(benchmark::State& state) {
  const fs::path db = history().parent_path() / fmt::format("neurarch_track_bench_noop_{}.db", ::getpid());
  remove_db(db);
  track_into(db.string(), "main");
  for (auto _ : state)
    if (track_into(db.string(), "main") != 0) state.SkipWithError("a re-run read revisions");
  remove_db(db);
}
BENCHMARK(BM_TrackIncrementalNothingNew)->Unit(benchmark::kMillisecond);

void BM_TrackIncrementalTenNew(benchmark::State& state) {
  const fs::path base = history().parent_path() / fmt::format("neurarch_track_bench_base_{}.db", ::getpid());
  const fs::path db = history().parent_path() / fmt::format("neurarch_track_bench_ten_{}.db", ::getpid());
  remove_db(base);
  track_into(base.string(), "main~10");
  for (auto _ : state) {
    state.PauseTiming();
    remove_db(db);
    fs::copy_file(base, db);
    state.ResumeTiming();
    if (track_into(db.string(), "main") != 10) state.SkipWithError("expected ten new revisions");
  }
  remove_db(base);
  remove_db(db);
}
BENCHMARK(BM_TrackIncrementalTenNew)->Unit(benchmark::kMillisecond);

}  // namespace
