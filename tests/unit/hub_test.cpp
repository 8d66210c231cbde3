// The Hub client against a fake Hub on loopback: cache layout, header-only fetching, cache reuse,
// offline mode, progress. Errors and retries are in hub_errors_test.cpp.
#include "hub/hub.hpp"

#include <netdb.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/shared_data.hpp"

#include "checkpoint/safetensors.hpp"
#include "core/error.hpp"
#include "hub/model_info.hpp"

#ifdef NEURARCH_HAVE_HTTPLIB
#include "unit/hub_fake_server.hpp"
#include "unit/hub_test_repos.hpp"
#endif

namespace neurarch::hub {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(HubModelInfo, ParsesTheApiAnswerAndRoundTrips) {
  const auto info = parse_model_info(
      R"({"id":"org/m","sha":"abc","downloads":7,"likes":2,"lastModified":"2024-05-01T00:00:00.000Z",)"
      R"("gated":"manual","safetensors":{"parameters":{"F32":10},"total":10},"siblings":[]})");
  ASSERT_TRUE(info);
  EXPECT_EQ(info->id, "org/m");
  EXPECT_EQ(info->sha, "abc");
  EXPECT_EQ(info->downloads, 7);
  EXPECT_EQ(info->likes, 2);
  EXPECT_EQ(info->gated, "manual");
  EXPECT_EQ(info->safetensors_total, 10);
  const auto again = parse_model_info(model_info_json(*info));
  ASSERT_TRUE(again);
  EXPECT_EQ(again->gated, "manual");
  EXPECT_EQ(again->safetensors_total, 10);
  EXPECT_EQ(again->last_modified, info->last_modified);
}

TEST(HubModelInfo, WrongTypesReadAsAbsent) {
  const auto info = parse_model_info(R"({"downloads":"many","gated":false,"safetensors":3})");
  ASSERT_TRUE(info);
  EXPECT_FALSE(info->downloads);
  EXPECT_EQ(info->gated, "false");
  EXPECT_FALSE(info->safetensors_total);
  EXPECT_FALSE(parse_model_info("[1,2]"));
  EXPECT_FALSE(parse_model_info("not json"));
}

#ifdef NEURARCH_HAVE_HTTPLIB
using namespace testing;

class HubClientTest : public HubTest {};

TEST_F(HubClientTest, WritesTheStandardCacheLayout) {
  HubClient client(options());
  const auto model = client.fetch("org/single", "");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->source, "hub");
  EXPECT_EQ(model->revision, kSingleCommit);
  EXPECT_EQ(model->config_text, kConfig);

  const fs::path repo = cache() / "models--org--single";
  EXPECT_EQ(read(repo / "refs" / "main"), kSingleCommit);  // bare hash, as huggingface_hub writes it
  const fs::path config = repo / "snapshots" / kSingleCommit / "config.json";
  ASSERT_TRUE(fs::is_symlink(config));
  EXPECT_EQ(fs::read_symlink(config), fs::path("../../blobs") / kConfigEtag);  // relative link
  EXPECT_EQ(read(config), kConfig);
  EXPECT_EQ(read(repo / "blobs" / kConfigEtag), kConfig);
  EXPECT_EQ(model->config_origin, config.string());
  EXPECT_EQ(incomplete_files(), 0);
  // Nothing but the real config.json enters snapshots/: transformers must never meet a stand-in.
  EXPECT_EQ(std::distance(fs::directory_iterator(config.parent_path()), fs::directory_iterator()), 1);
}

TEST_F(HubClientTest, SingleFileCheckpointArrivesHeaderOnly) {
  HubClient client(options());
  const auto model = client.fetch("org/single", "");
  ASSERT_TRUE(model && model->model_dir);
  const fs::path standins = cache() / "models--org--single" / "neurarch" / kSingleCommit;
  EXPECT_EQ(*model->model_dir, standins);
  EXPECT_TRUE(is_header_only(standins));

  const std::string real = single_weights();
  const fs::path standin = standins / "model.safetensors";
  EXPECT_EQ(fs::file_size(standin), real.size());
  EXPECT_EQ(read(standin).substr(0, header_bytes_of(real)), real.substr(0, header_bytes_of(real)));
  EXPECT_EQ(hub.bytes_served("model.safetensors"), header_bytes_of(real));  // not one byte of data

  const auto ckpt = checkpoint::read_checkpoint_dir(*model->model_dir);
  ASSERT_TRUE(ckpt);
  ASSERT_EQ(ckpt->tensors.size(), 2u);
  EXPECT_EQ(ckpt->total_scalars, 65536 + 1024);
}

TEST_F(HubClientTest, ShardedCheckpointFetchesEveryShardHeaderOnly) {
  HubClient client(options());
  const auto model = client.fetch("org/sharded", "");
  ASSERT_TRUE(model && model->model_dir);
  EXPECT_EQ(model->revision, kShardedCommit);
  const auto ckpt = checkpoint::read_checkpoint_dir(*model->model_dir);
  ASSERT_TRUE(ckpt);
  EXPECT_EQ(ckpt->files.size(), 3u);
  EXPECT_EQ(ckpt->tensors.size(), 3u);
  for (int i = 1; i <= 3; ++i) {
    const std::string name = shard_name(i);
    EXPECT_EQ(hub.requests_for(name), 2) << name;  // the 8-byte prefix, then the header
    EXPECT_EQ(hub.resolves_for(name), 1) << name;  // the header goes straight to the CDN
    EXPECT_EQ(hub.bytes_served(name), header_bytes_of(shard_weights(i))) << name;
  }
  EXPECT_TRUE(fs::exists(*model->model_dir / "model.safetensors.index.json"));
  EXPECT_EQ(hub.bytes_served("model.safetensors"), 0u);  // asked for, 404
}

TEST_F(HubClientTest, ModelInfoIsExposedAndCachedWithTheSnapshot) {
  HubClient client(options());
  ASSERT_TRUE(client.fetch("org/single", ""));
  ASSERT_TRUE(client.model_info());
  EXPECT_EQ(client.model_info()->downloads, 1234);
  EXPECT_EQ(client.model_info()->likes, 5);
  EXPECT_EQ(client.model_info()->safetensors_total, 66560);
  EXPECT_EQ(client.model_info()->sha, kSingleCommit);
  const fs::path snapshot = cache() / "models--org--single" / "snapshots" / kSingleCommit;
  const auto cached = cached_model_info(snapshot);
  ASSERT_TRUE(cached);
  EXPECT_EQ(cached->last_modified, "2024-01-02T03:04:05.000Z");
  EXPECT_EQ(checkpoint_dir(snapshot), cache() / "models--org--single" / "neurarch" / kSingleCommit);
}

TEST_F(HubClientTest, SecondFetchIsServedFromTheCacheWithoutARequest) {
  HubClient client(options());
  ASSERT_TRUE(client.fetch("org/sharded", ""));
  const int after_first = hub.requests();
  const auto again = HubClient(options()).fetch("org/sharded", "");
  ASSERT_TRUE(again);
  EXPECT_EQ(hub.requests(), after_first);
  EXPECT_EQ(again->source, "hf-cache");
  EXPECT_EQ(again->revision, kShardedCommit);
  ASSERT_TRUE(again->model_dir);
  EXPECT_TRUE(checkpoint::read_checkpoint_dir(*again->model_dir));
}

TEST_F(HubClientTest, ResolverUsesTheCacheTheClientFilled) {
  HubClient client(options());
  resolve::ResolveOptions ro;
  ro.hub_cache = cache();
  ro.hub = &client;
  const auto first = resolve::resolve("org/single", ro);
  EXPECT_EQ(first.source, "hub");
  const int after_first = hub.requests();
  const auto second = resolve::resolve("org/single", ro);
  EXPECT_EQ(hub.requests(), after_first);
  EXPECT_EQ(second.source, "hf-cache");
  EXPECT_EQ(second.revision, kSingleCommit);
  ASSERT_TRUE(second.model_dir);
  // The resolver hands out the snapshot; checkpoint_dir finds the stand-ins beside it.
  EXPECT_TRUE(checkpoint::read_checkpoint_dir(checkpoint_dir(*second.model_dir)));
}

TEST_F(HubClientTest, CommitRevisionNeedsNoRef) {
  HubClient client(options());
  const auto model = client.fetch("org/single", kSingleCommit);
  ASSERT_TRUE(model);
  EXPECT_EQ(model->revision, kSingleCommit);
  EXPECT_FALSE(fs::exists(cache() / "models--org--single" / "refs" / kSingleCommit));
  EXPECT_TRUE(fs::exists(cache() / "models--org--single" / "snapshots" / kSingleCommit / "config.json"));
}

TEST_F(HubClientTest, OfflineNeverTouchesTheNetwork) {
  auto o = options();
  o.offline = true;
  try {
    HubClient(o).fetch("org/single", "");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("offline"));
  }
  ScopedEnv offline{{"HF_HUB_OFFLINE", "1"}};
  EXPECT_THROW(HubClient(options()).fetch("org/single", ""), Error);
  EXPECT_EQ(hub.requests(), 0);
}

TEST_F(HubClientTest, OfflineServesWhatTheCacheHas) {
  ASSERT_TRUE(HubClient(options()).fetch("org/single", ""));
  const int after_first = hub.requests();
  auto o = options();
  o.offline = true;
  const auto model = HubClient(o).fetch("org/single", "");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->source, "hf-cache");
  EXPECT_EQ(hub.requests(), after_first);
}

TEST_F(HubClientTest, EndpointAndTokenComeFromTheEnvironment) {
  ScopedEnv env_vars{{"HF_ENDPOINT", hub.endpoint().c_str()}, {"HF_TOKEN", kGoodToken}};
  auto o = options();
  o.endpoint.clear();
  o.token.reset();
  const auto model = HubClient(o).fetch("org/gated", "");
  ASSERT_TRUE(model);
  EXPECT_THAT(hub.authorizations(), ::testing::Contains(std::string("Bearer ") + kGoodToken));
}

TEST_F(HubClientTest, TokenNeverReachesAnotherHost) {
  addrinfo* found = nullptr;
  const bool resolves = ::getaddrinfo("localhost", nullptr, nullptr, &found) == 0;
  NEURARCH_REQUIRE(resolves, "localhost does not resolve here");
  ::freeaddrinfo(found);
  hub.cdn_host("localhost");
  auto o = options();
  o.token = kGoodToken;
  ASSERT_TRUE(HubClient(o).fetch("org/sharded", ""));
  EXPECT_THAT(hub.authorizations(), ::testing::Each(std::string("Bearer ") + kGoodToken));
  EXPECT_EQ(hub.cdn_authorizations().size(), 6u);
  EXPECT_THAT(hub.cdn_authorizations(), ::testing::Each(std::string()));
}

TEST_F(HubClientTest, TokenFileInHfHomeIsUsed) {
  std::ofstream(home() / "token") << kGoodToken << "\n";
  auto o = options();
  o.token.reset();
  EXPECT_TRUE(HubClient(o).fetch("org/gated", ""));
}

TEST_F(HubClientTest, ProgressLineOnlyWhenAsked) {
  std::ostringstream shown;
  auto o = options();
  o.progress = ProgressMode::Always;
  o.progress_stream = &shown;
  ASSERT_TRUE(HubClient(o).fetch("org/sharded", ""));
  EXPECT_THAT(shown.str(), HasSubstr("neurarch: org/sharded: safetensors headers 3/3"));
  EXPECT_TRUE(shown.str().ends_with("\r\x1b[K"));  // erased before the report is printed

  std::ostringstream silent;
  o.progress = ProgressMode::Never;
  o.progress_stream = &silent;
  o.cache_dir = cache() / "other";
  ASSERT_TRUE(HubClient(o).fetch("org/sharded", ""));
  EXPECT_EQ(silent.str(), "");
}
#endif

}  // namespace
}  // namespace neurarch::hub
