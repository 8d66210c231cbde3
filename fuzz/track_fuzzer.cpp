// libFuzzer target for the change tracker's readers: two revisions of a repository whose files
// (config.json, tokenizer files, chat templates, LFS pointers, a safetensors file, the shard index)
// come from the input, read as `track` reads them, then classified (config diff, graph diff,
// tokenizer and chat-template diffs) and stored as the database stores them. Repository content never
// throws: it becomes a Problem on the record.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

#include <fuzzer/FuzzedDataProvider.h>

#include "core/error.hpp"
#include "graph/budget.hpp"
#include "track/classify.hpp"
#include "track/lfs.hpp"
#include "track/revision_reader.hpp"
#include "track/source.hpp"
#include "track/text_diff.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

const char* const kFiles[] = {"config.json",         "tokenizer_config.json", "tokenizer.json",
                              "special_tokens_map.json", "chat_template.jinja", "added_tokens.json",
                              "model.safetensors",   "model.safetensors.index.json", "pytorch_model.bin",
                              "vocab.json",          "generation_config.json"};

class FuzzSource : public neurarch::track::RevisionSource {
 public:
  // commit -> path -> bytes
  std::map<std::string, std::map<std::string, std::string>> trees;

  std::string url() const override { return "https://example.invalid/fuzz"; }
  std::string tip() override { return "b"; }
  std::vector<neurarch::track::SourceCommit> commits_since(const std::function<bool(const std::string&)>&) override {
    return {{"a", "", 1, "fuzz", "first", {}}, {"b", "a", 2, "fuzz", "second", {}}};
  }
  std::vector<neurarch::track::SourceFile> files(const std::string& commit) override {
    std::vector<neurarch::track::SourceFile> out;
    for (const auto& [path, bytes] : trees[commit])
      out.push_back({path, std::to_string(std::hash<std::string>{}(bytes)), static_cast<std::int64_t>(bytes.size()), {}});
    return out;
  }
  std::string read(const std::string& commit, const neurarch::track::SourceFile& file, std::uint64_t max_bytes) override {
    const std::string& bytes = trees[commit][file.path];
    if (bytes.size() > max_bytes) throw neurarch::Error(neurarch::ErrorKind::InvalidInput, file.path, "too large");
    return bytes;
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const neurarch::graph::BudgetScope budget({1 << 15, 1 << 15, std::nullopt});  // each config is rebuilt
  FuzzSource source;
  for (const char* commit : {"a", "b"}) {
    const int files = in.ConsumeIntegralInRange<int>(0, 6);
    for (int i = 0; i < files; ++i) {
      const char* path = kFiles[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kFiles) - 1)];
      // The second revision often keeps a file: unchanged blobs take the parent's facts.
      if (commit[0] == 'b' && in.ConsumeBool() && source.trees["a"].count(path)) {
        source.trees["b"][path] = source.trees["a"][path];
        continue;
      }
      source.trees[commit][path] = in.ConsumeRandomLengthString(1 << 16);
    }
  }
  const auto commits = source.commits_since({});
  const auto first = neurarch::track::read_revision(source, commits[0], nullptr);
  const auto second = neurarch::track::read_revision(source, commits[1], &first);
  const auto changes = neurarch::track::classify(first, second, &first);
  // What the store writes (src/track/store.cpp: bytes that are not UTF-8 become U+FFFD) must read back as
  // the same record.
  const auto stored = [](const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); };
  for (const auto& c : changes) (void)nlohmann::json::parse(stored(neurarch::track::to_json(c)));
  const auto json = neurarch::track::to_json(second);
  (void)nlohmann::json::parse(stored(json));
  check(neurarch::track::to_json(neurarch::track::record_from_json(json)) == json);
  (void)neurarch::track::unified_diff(source.trees["a"]["chat_template.jinja"], source.trees["b"]["chat_template.jinja"],
                                      "chat_template.jinja");
  const std::string pointer = in.ConsumeRemainingBytesAsString();
  if (neurarch::track::looks_like_lfs_pointer(pointer)) {
    try {
      const auto p = neurarch::track::parse_lfs_pointer(pointer, "fuzz");
      check(p.size >= 0 && p.oid.size() == 71);
    } catch (const neurarch::Error& e) {
      check(std::string(e.what()).find('\n') == std::string::npos);
    }
  }
  return 0;
}
