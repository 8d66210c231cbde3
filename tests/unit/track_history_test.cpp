// The change tracker over a real git repository with a scripted history: the exact
// classification of every revision, the advisories, per-revision problems, incremental runs.
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "track/git_source.hpp"
#include "track/store.hpp"
#include "track/tracker.hpp"
#include "track/views.hpp"
#include "unit/track_fixture.hpp"

using namespace neurarch;
namespace fx = neurarch::testing;
using neurarch::testing::ScriptedRepo;
using nlohmann::json;

namespace {

std::vector<std::string> lines_of(const json& revision) {
  std::vector<std::string> out;
  for (const auto& c : revision.at("changes"))
    out.push_back(c.at("severity").get<std::string>() + " " + c.at("category").get<std::string>() + " " +
                  c.at("kind").get<std::string>() + " " + c.at("subject").get<std::string>());
  return out;
}

track::TrackResult track_repo(const ScriptedRepo& repo, track::Store& store) {
  track::GitSource source(repo.dir());
  return track::track(source, store, {"org/tiny"});
}

const json& change(const json& revision, const std::string& kind) {
  for (const auto& c : revision.at("changes"))
    if (c.at("kind") == kind) return c;
  throw std::runtime_error("no change of kind " + kind);
}

}  // namespace

TEST(TrackHistory, ClassifiesEveryRevisionOfTheScriptedHistory) {
  ScriptedRepo repo("history");
  const auto commits = fx::script_history(repo);
  track::Store store(":memory:");
  const auto result = track_repo(repo, store);
  EXPECT_EQ(result.new_revisions, 14u);
  EXPECT_EQ(result.breaking, 10u);
  EXPECT_EQ(result.tip, commits.back());

  const json h = *track::history_json(store, "org/tiny");
  ASSERT_EQ(h.at("revisions").size(), 14u);
  const auto& revs = h.at("revisions");
  for (std::size_t i = 0; i < commits.size(); ++i) EXPECT_EQ(revs[i].at("commit"), commits[i]);

  using V = std::vector<std::string>;
  EXPECT_EQ(lines_of(revs[0]), V{});
  EXPECT_EQ(lines_of(revs[1]), (V{"info config key-changed rope_scaling.factor", "info config key-added use_cache"}));
  EXPECT_EQ(lines_of(revs[2]), (V{"info config key-changed intermediate_size", "breaking graph tensors-reshaped 6 tensors",
                                  "info graph parameters-changed parameters",
                                  "notice graph memory-changed full fine-tune peak at batch 1"}));
  EXPECT_EQ(lines_of(revs[3]), (V{"breaking tokenizer vocabulary-changed vocabulary",
                                  "breaking tokenizer special-token-removed </s>",
                                  "info tokenizer special-token-added <|end|>",
                                  "breaking tokenizer role-id-changed eos_token", "notice tokenizer role-set pad_token"}));
  EXPECT_EQ(lines_of(revs[4]), (V{"breaking chat_template chat-template-changed default"}));
  EXPECT_EQ(lines_of(revs[5]), (V{"info chat_template chat-template-moved default"}));
  EXPECT_EQ(lines_of(revs[6]),
            (V{"info weights file-removed model-00001-of-00002.safetensors", "info weights file-removed model-00002-of-00002.safetensors",
               "info weights file-added model-00001-of-00003.safetensors", "info weights file-added model-00002-of-00003.safetensors",
               "info weights file-added model-00003-of-00003.safetensors", "notice weights resharded safetensors files"}));
  EXPECT_EQ(lines_of(revs[7]), (V{"breaking weights tensors-removed 1 tensor"}));
  EXPECT_EQ(lines_of(revs[8]),
            (V{"info weights file-removed model-00001-of-00003.safetensors", "info weights file-removed model-00002-of-00003.safetensors",
               "info weights file-removed model-00003-of-00003.safetensors", "info weights file-added model.safetensors",
               "notice weights resharded safetensors files"}));
  EXPECT_EQ(lines_of(revs[9]), (V{"info weights file-changed model.safetensors", "notice weights values-changed checkpoint"}));
  EXPECT_EQ(lines_of(revs[10]), (V{"info weights file-changed model.safetensors", "breaking weights tensors-reshaped 1 tensor",
                                   "breaking weights tensors-retyped 1 tensor"}));
  EXPECT_EQ(lines_of(revs[11]), (V{"breaking config config-unreadable config.json"}));
  EXPECT_EQ(lines_of(revs[12]), (V{"info config config-readable-again config.json", "info config key-changed num_hidden_layers",
                                   "breaking graph tensors-added 9 tensors", "info graph parameters-changed parameters",
                                   "notice graph memory-changed full fine-tune peak at batch 1"}));
  EXPECT_EQ(lines_of(revs[13]), (V{"notice weights pointer-invalid pytorch_model.bin"}));

  // The values behind the classification.
  const json& reshaped = change(revs[2], "tensors-reshaped");
  EXPECT_EQ(reshaped.at("before").at("model.layers.0.mlp.up_proj.weight").at("shape"), json({128, 64}));
  EXPECT_EQ(reshaped.at("after").at("model.layers.0.mlp.up_proj.weight").at("shape"), json({256, 64}));
  EXPECT_NE(reshaped.at("summary").get<std::string>().find("(config: intermediate_size)"), std::string::npos);
  const json& params = change(revs[2], "parameters-changed");
  EXPECT_EQ(params.at("after").get<std::int64_t>() - params.at("before").get<std::int64_t>(), 2 * 3 * 128 * 64);
  EXPECT_LT(change(revs[2], "memory-changed").at("before").get<std::int64_t>(),
            change(revs[2], "memory-changed").at("after").get<std::int64_t>());
  EXPECT_EQ(change(revs[1], "key-changed").at("before"), 2.0);
  EXPECT_EQ(change(revs[1], "key-changed").at("after"), 4.0);

  const json& eos = change(revs[3], "role-id-changed");
  EXPECT_EQ(eos.at("before"), (json{{"token", "</s>"}, {"id", 2}}));
  EXPECT_EQ(eos.at("after"), (json{{"token", "<|end|>"}, {"id", 5}}));
  EXPECT_EQ(change(revs[3], "vocabulary-changed").at("before").at("size"), 5);
  EXPECT_EQ(change(revs[3], "vocabulary-changed").at("after").at("size"), 6);
  EXPECT_EQ(change(revs[3], "role-set").at("after"), (json{{"token", "<unk>"}, {"id", 0}}));

  const std::string diff = change(revs[4], "chat-template-changed").at("detail").get<std::string>();
  EXPECT_NE(diff.find("--- a/chat_template (tokenizer_config.json)"), std::string::npos) << diff;
  EXPECT_NE(diff.find("-{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}"), std::string::npos) << diff;
  EXPECT_NE(diff.find("+<|{{ m['role'] }}|>"), std::string::npos) << diff;
  EXPECT_NE(diff.find("+{{ bos_token }}"), std::string::npos) << diff;

  EXPECT_EQ(change(revs[6], "file-added").at("after"), (json{{"oid", "sha256:cc" + std::string(62, '0')}, {"size", 256000}, {"lfs", true}}));
  EXPECT_EQ(change(revs[7], "tensors-removed").at("before"), json({"model.norm.weight"}));
  const json& retyped = change(revs[10], "tensors-retyped");
  EXPECT_EQ(retyped.at("before").at("lm_head.weight").at("dtype"), "F32");
  EXPECT_EQ(retyped.at("after").at("lm_head.weight").at("dtype"), "BF16");
  EXPECT_EQ(change(revs[10], "tensors-reshaped").at("after").at("model.embed_tokens.weight").at("shape"), json({1024, 64}));
  EXPECT_EQ(change(revs[12], "tensors-added").at("after").size(), 9u);
  EXPECT_TRUE(change(revs[12], "tensors-added").at("after").contains("model.layers.2.self_attn.q_proj.weight"));

  // Problems are reported on their revision and the run went on past them.
  EXPECT_TRUE(revs[10].at("problems").empty());
  ASSERT_EQ(revs[11].at("problems").size(), 1u);
  EXPECT_EQ(revs[11].at("problems")[0].at("file"), "config.json");
  EXPECT_NE(revs[11].at("problems")[0].at("message").get<std::string>().find("config.json@"), std::string::npos);
  ASSERT_EQ(revs[13].at("problems").size(), 1u);
  EXPECT_EQ(revs[13].at("problems")[0].at("file"), "pytorch_model.bin");
  EXPECT_NE(revs[13].at("problems")[0].at("message").get<std::string>().find("not a valid Git LFS pointer: oid must be sha256"),
            std::string::npos);
  EXPECT_EQ(result.problems.size(), 2u);

  // Every breaking change has one advisory and only those.
  std::set<std::string> ids;
  for (const auto& r : revs)
    for (const auto& c : r.at("changes")) {
      EXPECT_EQ(c.at("breaking").get<bool>(), !c.at("advisory").is_null()) << c.dump();
      if (!c.at("advisory").is_null()) ids.insert(c.at("advisory").get<std::string>());
    }
  EXPECT_EQ(ids.size(), 10u);
}

TEST(TrackHistory, AnIncrementalRunReadsOnlyNewRevisionsAndAgreesWithOneRun) {
  ScriptedRepo repo("incremental");
  track::Store store(":memory:");
  auto first = fx::script_history(repo, 0, 5);
  EXPECT_EQ(track_repo(repo, store).new_revisions, 5u);
  EXPECT_EQ(track_repo(repo, store).new_revisions, 0u);  // nothing new: only the tip is read
  auto rest = fx::script_history(repo, 5, 14);
  const auto second = track_repo(repo, store);
  EXPECT_EQ(second.new_revisions, 9u);
  EXPECT_EQ(second.tip, rest.back());

  track::Store once(":memory:");
  track_repo(repo, once);
  json a = *track::history_json(store, "org/tiny"), b = *track::history_json(once, "org/tiny");
  EXPECT_EQ(a, b);
  EXPECT_EQ(store.model("org/tiny")->revisions, 14);
}

TEST(TrackHistory, ABrokenConfigAcrossAnIncrementalBoundaryIsComparedWithTheLastGoodOne) {
  ScriptedRepo repo("boundary");
  track::Store store(":memory:");
  fx::script_history(repo, 0, 12);  // ends on the broken config
  track_repo(repo, store);
  fx::script_history(repo, 12, 13);
  track_repo(repo, store);
  const json h = *track::history_json(store, "org/tiny");
  const auto& fixed = h.at("revisions")[12];
  EXPECT_EQ(lines_of(fixed)[1], "info config key-changed num_hidden_layers");
  EXPECT_EQ(lines_of(fixed)[2], "breaking graph tensors-added 9 tensors");
}

// Found by fuzz/track_fuzzer.cpp (seed fuzz/corpus/track/regression-invalid-utf8-in-config): a config.json
// whose key is not UTF-8 fails to parse, and the parse error quotes the bytes; the change and the record
// that carry it made the store's JSON writer throw, ending `track` half-way with nothing stored.
TEST(TrackHistory, AConfigKeyThatIsNotUtf8IsStoredNotThrown) {
  ScriptedRepo repo("not_utf8");
  track::Store store(":memory:");
  const std::string good = R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
 "num_attention_heads": 4, "vocab_size": 1000})";
  repo.write("config.json", good);
  repo.commit("good", 1704067200);
  std::string bad = good;
  bad.replace(bad.find("num_hidden"), 10, "num_hidd\xe6n");
  repo.write("config.json", bad);
  repo.commit("not UTF-8", 1704067300);
  const auto result = track_repo(repo, store);
  EXPECT_EQ(result.new_revisions, 2u);
  const json h = *track::history_json(store, "org/tiny");
  ASSERT_EQ(h.at("revisions").size(), 2u);
  const std::string stored = h.at("revisions")[1].dump();
  EXPECT_NE(stored.find("\xef\xbf\xbd"), std::string::npos) << stored;  // U+FFFD where the byte was
}

TEST(TrackHistory, NotARepositoryIsOneError) {
  const auto dir = std::filesystem::temp_directory_path() / ("neurarch_track_not_a_repo_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  try {
    track::GitSource source(dir);
    FAIL() << "opened a folder that is not a repository";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_NE(std::string(e.what()).find("not a git repository"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

TEST(TrackHistory, AShallowCloneIsTrackedWithItsMissingHistoryReported) {
  ScriptedRepo repo("shallow_origin");
  const auto commits = fx::script_history(repo, 0, 4);
  const auto clone = std::filesystem::temp_directory_path() / ("neurarch_track_shallow_" + std::to_string(::getpid()));
  std::filesystem::remove_all(clone);
  fx::run_shell("git clone -q --depth 2 file://" + repo.dir().string() + " " + clone.string());
  track::Store store(":memory:");
  track::GitSource source(clone);
  const auto result = track::track(source, store, {"org/tiny"});
  EXPECT_EQ(result.new_revisions, 2u);
  const json h = *track::history_json(store, "org/tiny");
  const auto& revs = h.at("revisions");
  ASSERT_EQ(revs.size(), 2u);
  EXPECT_EQ(revs[0].at("commit"), commits[2]);
  ASSERT_EQ(revs[0].at("problems").size(), 2u);
  EXPECT_NE(revs[0].at("problems")[0].at("message").get<std::string>().find("shallow clone"), std::string::npos);
  EXPECT_NE(revs[0].at("problems")[1].at("message").get<std::string>().find("is not in this clone"), std::string::npos);
  EXPECT_TRUE(revs[0].at("changes").empty());
  EXPECT_EQ(lines_of(revs[1])[0], "breaking tokenizer vocabulary-changed vocabulary");  // the tokenizer swap
  std::filesystem::remove_all(clone);
}
