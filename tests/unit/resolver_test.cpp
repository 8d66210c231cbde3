#include "resolve/resolver.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/limits.hpp"

namespace neurarch::resolve {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr const char* kMainCommit = "0123456789abcdef0123456789abcdef01234567";
constexpr const char* kPrCommit = "fedcba9876543210fedcba9876543210fedcba98";
constexpr const char* kMainConfig = "{\"model_type\": \"tiny\", \"hidden_size\": 8}\n";
constexpr const char* kPrConfig = "{\"model_type\": \"tiny\", \"hidden_size\": 16}\n";

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// Every test gets its own folder, so parallel ctest runs of this binary cannot collide.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    path_ = fs::temp_directory_path() /
            ("neurarch-resolver-" + std::to_string(::getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Sets or clears environment variables for one test and puts the old values back.
class EnvGuard {
 public:
  explicit EnvGuard(std::map<std::string, std::optional<std::string>> values) {
    for (const auto& [name, value] : values) {
      const char* old = std::getenv(name.c_str());
      saved_.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
      set(name, value);
    }
  }
  ~EnvGuard() {
    for (const auto& [name, value] : saved_) set(name, value);
  }
  EnvGuard(const EnvGuard&) = delete;
  EnvGuard& operator=(const EnvGuard&) = delete;

 private:
  static void set(const std::string& name, const std::optional<std::string>& value) {
    if (value) {
      ::setenv(name.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name.c_str());
    }
  }
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

const std::map<std::string, std::optional<std::string>> kNoCacheEnv = {
    {"HF_HUB_CACHE", std::nullopt}, {"HUGGINGFACE_HUB_CACHE", std::nullopt}, {"HF_HOME", std::nullopt},
    {"XDG_CACHE_HOME", std::nullopt}};

class StubHub : public HubFetcher {
 public:
  std::optional<ResolvedModel> fetch(const std::string& repo_id, const std::string& revision) override {
    calls.emplace_back(repo_id, revision);
    return answer;
  }
  std::vector<std::pair<std::string, std::string>> calls;
  std::optional<ResolvedModel> answer;
};

template <typename F>
Error catch_error(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "expected neurarch::Error";
  return Error(ErrorKind::Io, "", "no error thrown");
}

// A cache laid out as huggingface_hub writes it: refs/ name commits, snapshots/ hold the files.
class ResolverCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    repo_ = cache() / "models--acme--tiny-model";
    write_file(repo_ / "refs" / "main", std::string(kMainCommit));  // no newline, as the Hub writes it
    write_file(repo_ / "refs" / "pr" / "1", std::string(kPrCommit) + "\n");
    write_file(repo_ / "snapshots" / kMainCommit / "config.json", kMainConfig);
    write_file(repo_ / "snapshots" / kPrCommit / "config.json", kPrConfig);
  }
  fs::path cache() const { return tmp_.path() / "hub"; }
  ResolveOptions options() const {
    ResolveOptions opts;
    opts.hub_cache = cache();
    return opts;
  }

  TempDir tmp_;
  fs::path repo_;
};

TEST_F(ResolverCacheTest, ResolvesIdThroughMainRef) {
  const ResolvedModel m = resolve("acme/tiny-model", options());
  EXPECT_EQ(m.id, "acme/tiny-model");
  EXPECT_EQ(m.source, "hf-cache");
  EXPECT_EQ(m.revision, kMainCommit);
  EXPECT_EQ(m.config_text, kMainConfig);
  EXPECT_EQ(fs::path(m.config_origin), repo_ / "snapshots" / kMainCommit / "config.json");
  ASSERT_TRUE(m.model_dir.has_value());
  EXPECT_EQ(*m.model_dir, repo_ / "snapshots" / kMainCommit);
}

TEST_F(ResolverCacheTest, ResolvesBranchNames) {
  EXPECT_EQ(resolve("acme/tiny-model@main", options()).revision, kMainCommit);
  const ResolvedModel pr = resolve("acme/tiny-model@pr/1", options());
  EXPECT_EQ(pr.revision, kPrCommit);
  EXPECT_EQ(pr.config_text, kPrConfig);

  ResolveOptions opts = options();
  opts.revision = "refs/pr/1";
  EXPECT_EQ(resolve("acme/tiny-model", opts).revision, kPrCommit);
}

TEST_F(ResolverCacheTest, ResolvesFullAndShortCommitHashes) {
  EXPECT_EQ(resolve(std::string("acme/tiny-model@") + kPrCommit, options()).config_text, kPrConfig);
  EXPECT_EQ(resolve("acme/tiny-model@fedcba9", options()).revision, kPrCommit);
  EXPECT_EQ(resolve("acme/tiny-model@FEDCBA98", options()).revision, kPrCommit);
}

TEST_F(ResolverCacheTest, AmbiguousCommitPrefixIsAnError) {
  write_file(repo_ / "snapshots" / "0123456fffffffffffffffffffffffffffffffff" / "config.json", kPrConfig);
  const Error e = catch_error([&] { resolve("acme/tiny-model@0123456", options()); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  EXPECT_THAT(e.what(), HasSubstr("0123456"));
  EXPECT_EQ(resolve("acme/tiny-model@01234567", options()).revision, kMainCommit);
}

TEST_F(ResolverCacheTest, MissingRevisionNamesRevisionAndCacheFolder) {
  const Error e = catch_error([&] { resolve("acme/tiny-model@v9", options()); });
  EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  EXPECT_EQ(e.where(), "acme/tiny-model@v9");
  EXPECT_THAT(e.what(), HasSubstr("'v9'"));
  EXPECT_THAT(e.what(), HasSubstr(repo_.string()));
  EXPECT_THAT(e.what(), HasSubstr("pr/1"));  // lists what the cache does hold
}

TEST_F(ResolverCacheTest, MissingRevisionDoesNotFallBackToCatalogue) {
  write_file(cache() / "models--gpt2" / "refs" / "main", kMainCommit);
  write_file(cache() / "models--gpt2" / "snapshots" / kMainCommit / "config.json", kMainConfig);
  EXPECT_EQ(resolve("gpt2", options()).source, "hf-cache");  // the cache outranks the catalogue

  const Error cached = catch_error([&] { resolve("gpt2@v9", options()); });
  EXPECT_EQ(cached.kind(), ErrorKind::NotFound);
  EXPECT_THAT(cached.what(), HasSubstr("v9"));

  const Error uncached = catch_error([&] { resolve("facebook/dinov2-small@v9", options()); });
  EXPECT_EQ(uncached.kind(), ErrorKind::NotFound);
  EXPECT_THAT(uncached.what(), HasSubstr("v9"));
  EXPECT_THAT(uncached.what(), HasSubstr(cache().string()));
}

TEST_F(ResolverCacheTest, RejectsBadRevisions) {
  for (const std::string spec : {"acme/tiny-model@", "acme/tiny-model@../../refs/main", "acme/tiny-model@/etc"}) {
    EXPECT_EQ(catch_error([&] { resolve(spec, options()); }).kind(), ErrorKind::InvalidInput) << spec;
  }
  ResolveOptions opts = options();
  opts.revision = "main";
  const Error twice = catch_error([&] { resolve("acme/tiny-model@pr/1", opts); });
  EXPECT_EQ(twice.kind(), ErrorKind::InvalidInput);
}

TEST_F(ResolverCacheTest, CorruptRefFileIsNamed) {
  write_file(repo_ / "refs" / "broken", "not a hash");
  const Error e = catch_error([&] { resolve("acme/tiny-model@broken", options()); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  EXPECT_EQ(fs::path(e.where()), repo_ / "refs" / "broken");
}

TEST_F(ResolverCacheTest, OversizedCachedConfigIsInvalidInput) {
  const fs::path config = repo_ / "snapshots" / kMainCommit / "config.json";
  fs::resize_file(config, limits::kMaxConfigBytes + 1);
  const Error e = catch_error([&] { resolve("acme/tiny-model", options()); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  EXPECT_EQ(fs::path(e.where()), config);
}

TEST(DefaultHubCache, FollowsHuggingFaceEnvironmentPrecedence) {
  EnvGuard env({{"HF_HUB_CACHE", "/hf/cache"},
                {"HUGGINGFACE_HUB_CACHE", std::nullopt},
                {"HF_HOME", "/hf/home"},
                {"XDG_CACHE_HOME", "/xdg"},
                {"HOME", "/home/someone"}});
  EXPECT_EQ(default_hub_cache(), fs::path("/hf/cache"));
  ::unsetenv("HF_HUB_CACHE");
  EXPECT_EQ(default_hub_cache(), fs::path("/hf/home/hub"));
  ::unsetenv("HF_HOME");
  EXPECT_EQ(default_hub_cache(), fs::path("/xdg/huggingface/hub"));
  ::unsetenv("XDG_CACHE_HOME");
  EXPECT_EQ(default_hub_cache(), fs::path("/home/someone/.cache/huggingface/hub"));
  ::setenv("HF_HOME", "~/hf", 1);
  EXPECT_EQ(default_hub_cache(), fs::path("/home/someone/hf/hub"));
}

TEST(DefaultHubCache, EmptyVariablesCountAsUnset) {
  EnvGuard env({{"HF_HUB_CACHE", ""}, {"HUGGINGFACE_HUB_CACHE", ""}, {"HF_HOME", "/hf/home"}});
  EXPECT_EQ(default_hub_cache(), fs::path("/hf/home/hub"));
}

TEST(ResolvePath, FileIsTheConfigItself) {
  TempDir tmp;
  const fs::path file = tmp.path() / "my-config.json";
  write_file(file, kMainConfig);
  const ResolvedModel m = resolve(file.string());
  EXPECT_EQ(m.source, "path");
  EXPECT_EQ(m.id, file.string());
  EXPECT_EQ(m.revision, "");
  EXPECT_EQ(m.config_text, kMainConfig);
  EXPECT_EQ(m.config_origin, file.string());
  EXPECT_EQ(m.model_dir, tmp.path());
}

TEST(ResolvePath, FolderHoldingConfigJson) {
  TempDir tmp;
  write_file(tmp.path() / "config.json", kPrConfig);
  const ResolvedModel m = resolve(tmp.path().string());
  EXPECT_EQ(m.source, "path");
  EXPECT_EQ(m.config_text, kPrConfig);
  EXPECT_EQ(fs::path(m.config_origin), tmp.path() / "config.json");
  EXPECT_EQ(m.model_dir, tmp.path());
}

TEST(ResolvePath, FolderWithoutConfigJsonIsNamed) {
  TempDir tmp;
  const Error e = catch_error([&] { resolve(tmp.path().string()); });
  EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  EXPECT_EQ(e.where(), tmp.path().string());
  EXPECT_THAT(e.what(), HasSubstr("config.json"));
}

TEST(ResolvePath, OversizedFileIsInvalidInputNamingIt) {
  TempDir tmp;
  const fs::path file = tmp.path() / "huge.json";
  write_file(file, "");
  fs::resize_file(file, limits::kMaxConfigBytes + 1);
  const Error e = catch_error([&] { resolve(file.string()); });
  EXPECT_EQ(e.kind(), ErrorKind::InvalidInput);
  EXPECT_EQ(e.where(), file.string());
}

TEST(ResolvePath, MissingPathLikeSpecIsNotFound) {
  TempDir tmp;
  const std::string spec = (tmp.path() / "nope.json").string();
  const Error e = catch_error([&] { resolve(spec); });
  EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  EXPECT_EQ(e.where(), spec);
}

TEST(ResolvePath, RevisionDoesNotApplyToPaths) {
  TempDir tmp;
  write_file(tmp.path() / "config.json", kMainConfig);
  ResolveOptions opts;
  opts.revision = "main";
  EXPECT_EQ(catch_error([&] { resolve(tmp.path().string(), opts); }).kind(), ErrorKind::InvalidInput);
}

TEST(ResolveStdin, ReadsTheStreamExactly) {
  std::istringstream in(std::string("{\"model_type\": \"gpt2\"}\n\0tail", 29));
  ResolveOptions opts;
  opts.stdin_stream = &in;
  const ResolvedModel m = resolve("-", opts);
  EXPECT_EQ(m.id, "-");
  EXPECT_EQ(m.source, "stdin");
  EXPECT_EQ(m.config_text, std::string("{\"model_type\": \"gpt2\"}\n\0tail", 29));
  EXPECT_FALSE(m.model_dir.has_value());
}

TEST(ResolveStdin, OversizedStreamIsInvalidInput) {
  std::istringstream in(std::string(limits::kMaxConfigBytes + 1, ' '));
  ResolveOptions opts;
  opts.stdin_stream = &in;
  EXPECT_EQ(catch_error([&] { resolve("-", opts); }).kind(), ErrorKind::InvalidInput);
}

class ResolverCatalogueTest : public ::testing::Test {
 protected:
  ResolveOptions options() const {
    ResolveOptions opts;
    opts.hub_cache = tmp_.path();  // empty: keep the developer's real cache out of the test
    return opts;
  }
  TempDir tmp_;
};

TEST_F(ResolverCatalogueTest, FindsBundledId) {
  const ResolvedModel m = resolve("facebook/dinov2-small", options());
  EXPECT_EQ(m.source, "catalogue");
  EXPECT_EQ(m.id, "facebook/dinov2-small");
  EXPECT_EQ(m.revision, "");
  EXPECT_EQ(m.config_origin, "catalogue:facebook/dinov2-small");
  EXPECT_THAT(m.config_text, HasSubstr("\"model_type\": \"dinov2\""));
  EXPECT_FALSE(m.model_dir.has_value());
}

TEST_F(ResolverCatalogueTest, MatchesCaseInsensitively) {
  EXPECT_EQ(resolve("Facebook/DINOv2-Small", options()).id, "facebook/dinov2-small");
  EXPECT_EQ(resolve("meta-llama/llama-2-7b-hf", options()).id, "meta-llama/Llama-2-7b-hf");
}

TEST_F(ResolverCatalogueTest, AcceptsCanonicalOrgPrefixesOfLegacyIds) {
  const ResolvedModel gpt2 = resolve("openai-community/gpt2", options());
  EXPECT_EQ(gpt2.id, "gpt2");
  EXPECT_EQ(gpt2.source, "catalogue");
  EXPECT_THAT(gpt2.config_text, HasSubstr("\"model_type\": \"gpt2\""));
  EXPECT_EQ(resolve("google-bert/bert-base-uncased", options()).id, "bert-base-uncased");
  EXPECT_EQ(resolve("FacebookAI/roberta-base", options()).id, "roberta-base");
}

TEST_F(ResolverCatalogueTest, NotFoundSaysWhereItLookedAndSuggests) {
  const Error e = catch_error([&] { resolve("facebook/dinov2-smal", options()); });
  EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  EXPECT_EQ(e.where(), "facebook/dinov2-smal");
  const std::string message = e.what();
  EXPECT_THAT(message, HasSubstr(tmp_.path().string()));
  EXPECT_THAT(message, HasSubstr("catalogue"));
  EXPECT_THAT(message, HasSubstr("did you mean facebook/dinov2-small"));
  EXPECT_THAT(message, Not(HasSubstr("\n")));
}

TEST_F(ResolverCatalogueTest, NotAnIdIsNotFound) {
  const Error e = catch_error([&] { resolve("facebook/dinov2/small", options()); });
  EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  EXPECT_EQ(catch_error([&] { resolve("", options()); }).kind(), ErrorKind::InvalidInput);
}

TEST(NearestKnownIds, SuggestsCloseCatalogueAndCachedIds) {
  TempDir tmp;
  fs::create_directories(tmp.path() / "models--acme--tiny-model");
  EnvGuard env({{"HF_HUB_CACHE", tmp.path().string()}});
  const auto dinov2 = nearest_known_ids("facebook/dinov2-smal");
  ASSERT_FALSE(dinov2.empty());
  EXPECT_EQ(dinov2.front(), "facebook/dinov2-small");
  EXPECT_THAT(nearest_known_ids("GPT-2"), ::testing::Contains("gpt2"));
  EXPECT_THAT(nearest_known_ids("acme/tiny-modle"), ::testing::Contains("acme/tiny-model"));
  EXPECT_EQ(nearest_known_ids("someone/Llama-2-7b-hf", 1), std::vector<std::string>{"meta-llama/Llama-2-7b-hf"});
  EXPECT_TRUE(nearest_known_ids("zzzzzzzzzzzzzzzzzzzz").empty());
}

class ResolverHubTest : public ResolverCatalogueTest {
 protected:
  ResolveOptions options_with_hub() {
    ResolveOptions opts = options();
    opts.hub = &hub_;
    return opts;
  }
  StubHub hub_;
};

TEST_F(ResolverHubTest, AskedOnlyWhenEverythingElseFails) {
  EXPECT_EQ(resolve("facebook/dinov2-small", options_with_hub()).source, "catalogue");
  EXPECT_TRUE(hub_.calls.empty());

  ResolvedModel online;
  online.id = "someone/new-model";
  online.source = "hub";
  online.config_text = kMainConfig;
  hub_.answer = online;
  const ResolvedModel m = resolve("someone/new-model@v2", options_with_hub());
  EXPECT_EQ(m.source, "hub");
  ASSERT_EQ(hub_.calls.size(), 1u);
  EXPECT_EQ(hub_.calls[0], std::make_pair(std::string("someone/new-model"), std::string("v2")));
}

TEST_F(ResolverHubTest, NotAskedWhenOffline) {
  hub_.answer = ResolvedModel{};
  ResolveOptions opts = options_with_hub();
  opts.offline = true;
  const Error e = catch_error([&] { resolve("someone/new-model", opts); });
  EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  EXPECT_THAT(e.what(), HasSubstr("offline"));
  EXPECT_TRUE(hub_.calls.empty());
}

TEST_F(ResolverHubTest, HubMissIsNotFound) {
  const Error e = catch_error([&] { resolve("someone/new-model", options_with_hub()); });
  EXPECT_EQ(e.kind(), ErrorKind::NotFound);
  EXPECT_EQ(hub_.calls.size(), 1u);
}

}  // namespace
}  // namespace neurarch::resolve
