// POST /api/v1/plan and /index.json over real HTTP: every answer and every error status.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "server/server_fixture.hpp"

namespace neurarch::server::testing {
namespace {
using Json = nlohmann::json;

class ServerApi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { live = new LiveServer(); }
  static void TearDownTestSuite() {
    delete live;
    live = nullptr;
  }
  static httplib::Result post(const std::string& body, const char* type = "application/json") {
    return live->client().Post("/api/v1/plan", body, type);
  }
  static LiveServer* live;
};
LiveServer* ServerApi::live = nullptr;

TEST_F(ServerApi, PlansACatalogueModelById) {
  auto res = post(R"({"model": "facebook/dinov2-small"})");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const auto j = body_json(res);
  EXPECT_EQ(j["schema"], "neurarch.report/v1");
  EXPECT_EQ(j["model"]["id"], "facebook/dinov2-small");
  EXPECT_EQ(j["model"]["source"], "catalogue");
  EXPECT_EQ(j["parameters"]["derived"], 22056576);
  ASSERT_TRUE(j["plan"].is_object());
  EXPECT_EQ(j["plan"]["full"]["batch"], 1);
  EXPECT_GT(j["plan"]["full"]["device_bytes"].get<std::int64_t>(), j["plan"]["lora"]["device_bytes"].get<std::int64_t>());
  EXPECT_FALSE(j["plan"]["batch_curve"].empty());
  EXPECT_EQ(j["plan"]["cards"].size(), j["plan"]["card_catalogue"].size());
}

TEST_F(ServerApi, PlansAPastedConfigWithOptions) {
  auto res = post(R"({"config": )" + dinov2_small_config() +
                  R"(, "name": "my dino", "batch": 4, "qlora": true, "lora_rank": 8, "card": "T4"})");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const auto j = body_json(res);
  EXPECT_EQ(j["model"]["id"], "my dino");
  EXPECT_EQ(j["model"]["source"], "pasted");
  EXPECT_EQ(j["parameters"]["derived"], 22056576);
  EXPECT_EQ(j["plan"]["full"]["batch"], 4);
  EXPECT_EQ(j["plan"]["lora"]["mode"], "qlora");
  EXPECT_EQ(j["plan"]["lora"]["setup"]["lora_rank"], 8);
  ASSERT_EQ(j["plan"]["cards"].size(), 1u);
  EXPECT_EQ(j["plan"]["cards"][0]["card"], "T4");
}

TEST_F(ServerApi, SameRequestIsServedFromThePlanCache) {
  const std::string body = R"({"model": "gpt2", "batch": 2, "grad_checkpointing": true})";
  auto first = post(body);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->status, 200);
  const auto hits = live->server().context().reports.hits();
  const auto misses = live->server().context().reports.misses();
  // The same options in another order are the same key.
  auto second = post(R"({"grad_checkpointing": true, "batch": 2, "model": "gpt2"})");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->body, first->body);
  EXPECT_EQ(live->server().context().reports.hits(), hits + 1);
  EXPECT_EQ(live->server().context().reports.misses(), misses);
  // Different options are a different entry.
  auto third = post(R"({"model": "gpt2", "batch": 3, "grad_checkpointing": true})");
  ASSERT_TRUE(third);
  EXPECT_EQ(live->server().context().reports.misses(), misses + 1);
}

TEST_F(ServerApi, MalformedBodiesAre400) {
  expect_json_error(post("{\"model\": "), 400, "invalid_json");
  expect_json_error(post("[1, 2]"), 400, "invalid_request");
  expect_json_error(post("{}"), 400, "invalid_request");
  expect_json_error(post(R"({"model": "gpt2", "config": {}})"), 400, "invalid_request");
  expect_json_error(post(R"({"model": 7})"), 400, "invalid_request");
  expect_json_error(post(R"({"config": "not an object"})"), 400, "invalid_request");
  expect_json_error(post(R"({"model": "gpt2", "name": "x"})"), 400, "invalid_request");
  // Good syntax, but no double holds it: nlohmann throws out_of_range, which was a 500 (found by the
  // server fuzzer; seed fuzz/corpus/server/regression-number-out-of-range).
  auto huge = post(R"({"model": "gpt2", "samples": 100001e308})");
  expect_json_error(huge, 400, "invalid_json");
  EXPECT_NE(huge->body.find("number out of range"), std::string::npos);
  expect_json_error(post(R"({"config": {"model_type": "gpt2", "n_embd": -1e999}})"), 400, "invalid_json");
}

TEST_F(ServerApi, BadOptionsAre400AndNameTheKey) {
  auto res = post(R"({"model": "gpt2", "batch": 0})");
  expect_json_error(res, 400, "invalid_option");
  EXPECT_NE(res->body.find("batch"), std::string::npos);
  expect_json_error(post(R"({"model": "gpt2", "batch": "four"})"), 400, "invalid_option");
  expect_json_error(post(R"({"model": "gpt2", "batch": 1000000})"), 400, "invalid_option");
  expect_json_error(post(R"({"model": "gpt2", "optimizer": "lion"})"), 400, "invalid_option");
  expect_json_error(post(R"({"model": "gpt2", "card": "Voodoo2"})"), 400, "invalid_option");
  expect_json_error(post(R"({"model": "gpt2", "lora_dropout": 1.5})"), 400, "invalid_option");
  auto unknown = post(R"({"model": "gpt2", "hub_url": "http://169.254.169.254/"})");
  expect_json_error(unknown, 400, "invalid_option");
  EXPECT_NE(unknown->body.find("hub_url"), std::string::npos);
}

TEST_F(ServerApi, ModelIdsFollowTheHubGrammarAndNeverBecomePathsOrUrls) {
  for (const char* id : {"../../etc/passwd", "/etc/passwd", "http://example.com/x", "a--b/c", "org/name/extra",
                         "org/.hidden", "gpt2@main", "org/na me", ""}) {
    auto res = post(Json{{"model", id}}.dump());
    expect_json_error(res, 400, "invalid_model_id");
  }
}

TEST_F(ServerApi, UnknownModelIs404WithSuggestions) {
  auto res = post(R"({"model": "facebook/dinov2-smal"})");
  expect_json_error(res, 404, "not_found");
  EXPECT_NE(res->body.find("facebook/dinov2-small"), std::string::npos) << "did-you-mean";
  // The Hub is never asked: a real but uncatalogued model is simply unknown here.
  expect_json_error(post(R"({"model": "openai/whisper-large-v3"})"), 404, "not_found");
}

TEST_F(ServerApi, UnusableConfigsAre422) {
  expect_json_error(post(R"({"config": {"model_type": "not-a-real-type", "hidden_size": 8}})"), 422, "unsupported_model");
  expect_json_error(post(R"({"config": {"model_type": "bert", "hidden_size": -5}})"), 422, "invalid_config");
}

TEST_F(ServerApi, WrongContentTypeIs415) {
  expect_json_error(post(R"({"model": "gpt2"})", "text/plain"), 415, "unsupported_media_type");
}

TEST_F(ServerApi, BodiesOverOneMebibyteAre413) {
  std::string big = R"({"config": {"pad": ")" + std::string((1u << 20) + 10, 'x') + "\"}}";
  expect_json_error(post(big), 413, "payload_too_large");
  // Just under the limit is read (and then judged on its content).
  std::string fits = R"({"config": {"model_type": "gpt2", "pad": ")" + std::string((1u << 20) - 100, 'x') + "\"}}";
  auto res = post(fits);
  ASSERT_TRUE(res);
  EXPECT_NE(res->status, 413);
}

TEST_F(ServerApi, GetOnThePlanRouteIs405) {
  auto res = live->client().Get("/api/v1/plan");
  expect_json_error(res, 405, "method_not_allowed");
  EXPECT_EQ(res->get_header_value("Allow"), "POST");
}

TEST_F(ServerApi, UnknownApiPathIsAJson404) { expect_json_error(live->client().Get("/api/v1/nothing"), 404, "not_found"); }

TEST_F(ServerApi, IndexListsEveryKnownModelWithItsHeadline) {
  auto res = live->client().Get("/index.json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  const auto j = body_json(res);
  EXPECT_EQ(j["schema"], "neurarch.index/v1");
  const auto& models = j["models"];
  EXPECT_GE(models.size(), 15u);
  const Json* dino = nullptr;
  bool some_error = false;
  for (const auto& m : models) {
    if (m["id"] == "facebook/dinov2-small") dino = &m;
    if (m.contains("error")) some_error = true;
  }
  ASSERT_NE(dino, nullptr);
  EXPECT_EQ((*dino)["parameters"], 22056576);
  EXPECT_EQ((*dino)["url"], "/models/facebook/dinov2-small");
  EXPECT_EQ((*dino)["full_fits"], "T4");
  auto page = post(R"({"model": "facebook/dinov2-small"})");
  EXPECT_EQ((*dino)["full_batch1_bytes"], body_json(page)["plan"]["full"]["device_bytes"]);
  // Every bundled catalogue entry is supported today.
  EXPECT_FALSE(some_error);
}

TEST(ServerIndex, ModelsThatCannotBeTracedAreListedWithTheirError) {
  // A local Hugging Face cache holding one model of a type neurarch does not build.
  const auto cache = neurarch::server::testing::fresh_temp_dir("hf_cache");
  const auto repo = cache / "models--org--unbuildable";
  std::filesystem::create_directories(repo / "refs");
  std::filesystem::create_directories(repo / "snapshots" / "0123456789abcdef0123456789abcdef01234567");
  std::ofstream(repo / "refs" / "main") << "0123456789abcdef0123456789abcdef01234567";
  std::ofstream(repo / "snapshots" / "0123456789abcdef0123456789abcdef01234567" / "config.json")
      << R"({"model_type": "no_such_architecture", "hidden_size": 64})";
  auto options = LiveServer::test_options();
  options.hub_cache = cache;
  LiveServer server(options);
  auto res = server.client().Get("/index.json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  const auto j = Json::parse(res->body);
  const Json* broken = nullptr;
  for (const auto& m : j["models"])
    if (m["id"] == "org/unbuildable") broken = &m;
  ASSERT_NE(broken, nullptr) << "a model of the local cache is missing from the index";
  ASSERT_TRUE(broken->contains("error"));
  EXPECT_NE((*broken)["error"].dump().find("no_such_architecture"), std::string::npos) << broken->dump();
}

TEST_F(ServerApi, EveryResponseCarriesTheSecurityHeaders) {
  for (const char* path : {"/", "/index.json", "/api/v1/nothing", "/models/facebook/dinov2-small"}) {
    auto res = live->client().Get(path);
    ASSERT_TRUE(res) << path;
    const auto csp = res->get_header_value("Content-Security-Policy");
    EXPECT_NE(csp.find("script-src 'self'"), std::string::npos) << path;
    EXPECT_EQ(csp.find("unsafe-inline"), std::string::npos) << path;
    EXPECT_EQ(res->get_header_value("X-Content-Type-Options"), "nosniff") << path;
    EXPECT_EQ(res->get_header_value("X-Frame-Options"), "DENY") << path;
  }
}

TEST(ServerRateLimit, PostsBeyondTheBurstAre429WithRetryAfter) {
  auto options = LiveServer::test_options();
  options.post_burst = 3;
  options.post_per_minute = 2;
  LiveServer live(options);
  auto client = live.client();
  for (int i = 0; i < 3; ++i) {
    auto res = client.Post("/api/v1/plan", R"({"model": "gpt2"})", "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << i;
  }
  auto limited = client.Post("/api/v1/plan", R"({"model": "gpt2"})", "application/json");
  expect_json_error(limited, 429, "rate_limited");
  const int retry = std::stoi(limited->get_header_value("Retry-After"));
  EXPECT_GE(retry, 1);
  EXPECT_LE(retry, 30);
  // GET pages are not rate-limited (they are cached).
  auto page = client.Get("/models/gpt2");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  // Shares and the config form spend from the same bucket.
  expect_json_error(client.Post("/api/v1/share", R"({"model": "gpt2"})", "application/json"), 429, "rate_limited");
  auto form = client.Post("/try", "config=%7B%7D", "application/x-www-form-urlencoded");
  ASSERT_TRUE(form);
  EXPECT_EQ(form->status, 429);
}

}  // namespace
}  // namespace neurarch::server::testing
