#pragma once
// The repos the fake Hub serves in the Hub client tests, and the fixture that starts it.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "hub/hub.hpp"
#include "unit/hub_fake_server.hpp"

namespace neurarch::hub::testing {

inline constexpr const char* kSingleCommit = "1111111111111111111111111111111111111111";
inline constexpr const char* kShardedCommit = "2222222222222222222222222222222222222222";
inline constexpr const char* kGatedCommit = "3333333333333333333333333333333333333333";
inline constexpr const char* kConfig = "{\"model_type\": \"tiny\", \"hidden_size\": 8}\n";
inline constexpr const char* kConfigEtag = "c0ffee0000000000000000000000000000000001";

inline std::string single_weights() { return safetensors_file({{"embed.weight", 65536}, {"head.weight", 1024}}); }
inline std::string shard_name(int i) { return "model-0000" + std::to_string(i) + "-of-00003.safetensors"; }
inline std::string shard_weights(int i) { return safetensors_file({{"layers." + std::to_string(i) + ".weight", 65536}}); }

// 64 hex digits, as the Hub's LFS ETags (sha256) are.
inline std::string lfs_etag(int i) { return std::string(63, 'e') + std::to_string(i); }

inline FakeRepo single_repo() {
  FakeRepo r;
  r.commit = kSingleCommit;
  r.files["config.json"] = {kConfig, false, kConfigEtag};
  r.files["model.safetensors"] = {single_weights(), true, lfs_etag(0)};
  r.info_json = std::string(R"({"id":"org/single","sha":")") + kSingleCommit +
                R"(","downloads":1234,"likes":5,"lastModified":"2024-01-02T03:04:05.000Z","gated":false,)"
                R"("safetensors":{"parameters":{"F32":66560},"total":66560}})";
  return r;
}

inline FakeRepo sharded_repo() {
  FakeRepo r;
  r.commit = kShardedCommit;
  r.files["config.json"] = {kConfig, false, kConfigEtag};
  std::string index = R"({"metadata":{"total_size":786432},"weight_map":{)";
  for (int i = 1; i <= 3; ++i) {
    r.files[shard_name(i)] = {shard_weights(i), true, lfs_etag(i)};
    index += (i > 1 ? "," : "") + std::string("\"layers.") + std::to_string(i) + ".weight\":\"" + shard_name(i) + "\"";
  }
  r.files["model.safetensors.index.json"] = {index + "}}", false, "1dec000000000000000000000000000000000001"};
  r.info_json = R"({"id":"org/sharded","downloads":1})";
  return r;
}

inline FakeRepo gated_repo() {
  FakeRepo r = single_repo();
  r.commit = kGatedCommit;
  r.gated = true;
  r.info_json.clear();
  return r;
}

class HubTest : public ::testing::Test {
 protected:
  HubTest() {
    hub.add("org/single", single_repo());
    hub.add("org/sharded", sharded_repo());
    hub.add("org/gated", gated_repo());
    FakeRepo no_config = single_repo();
    no_config.files.erase("config.json");
    hub.add("org/no-config", no_config);
    std::filesystem::create_directories(home());
  }

  // Explicit everything, so a developer's own token, cache or HF_ENDPOINT cannot leak in.
  HubOptions options() const {
    HubOptions o;
    o.endpoint = hub.endpoint();
    o.token = "";
    o.cache_dir = cache();
    o.progress = ProgressMode::Never;
    o.network.backoff_first = std::chrono::milliseconds(20);
    o.network.connect_timeout = std::chrono::milliseconds(2000);
    return o;
  }
  std::filesystem::path cache() const { return tmp.path() / "hub"; }
  std::filesystem::path home() const { return tmp.path() / "home"; }

  static std::string read(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  int incomplete_files() const {
    int n = 0;
    std::error_code ec;
    for (std::filesystem::recursive_directory_iterator it(cache(), ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().filename().string().find(".incomplete") != std::string::npos) ++n;
    }
    return n;
  }

  TempDir tmp;
  std::string home_text = (tmp.path() / "home").string();
  ScopedEnv env{{"HF_HUB_OFFLINE", nullptr}, {"HF_ENDPOINT", nullptr},          {"HF_TOKEN", nullptr},
                {"HUGGING_FACE_HUB_TOKEN", nullptr}, {"HF_TOKEN_PATH", nullptr}, {"HF_HOME", home_text.c_str()}};
  FakeHub hub;
};

}  // namespace neurarch::hub::testing
