// The HTML pages, their twins, the badge, the card catalogue and the static files, over HTTP.
#include <fstream>
#include <regex>

#include <gtest/gtest.h>

#include "server/server_fixture.hpp"

namespace neurarch::server::testing {
namespace {
using Json = nlohmann::json;

class ServerPages : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { live = new LiveServer(); }
  static void TearDownTestSuite() {
    delete live;
    live = nullptr;
  }
  static LiveServer* live;
};
LiveServer* ServerPages::live = nullptr;

std::string figure(const std::string& html, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(html, m, std::regex("data-figure=\"" + name + "\" data-value=\"([^\"]*)\""))) return "<absent>";
  return m[1];
}

void expect_html_page(const httplib::Result& res, int status = 200) {
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, status) << res->body.substr(0, 300);
  EXPECT_NE(res->get_header_value("Content-Type").find("text/html"), std::string::npos);
  EXPECT_EQ(res->body.rfind("<!doctype html>", 0), 0u);
  // CSP forbids inline script and style: the page must not need them.
  EXPECT_EQ(std::regex_search(res->body, std::regex("<script(?![^>]*\\bsrc=)")), false) << "inline script";
  EXPECT_EQ(res->body.find("<style"), std::string::npos);
  EXPECT_EQ(res->body.find(" style=\""), std::string::npos);
  EXPECT_EQ(res->body.find(" onclick="), std::string::npos);
}

TEST_F(ServerPages, HomePageOffersBothWaysIn) {
  auto res = live->client().Get("/");
  expect_html_page(res);
  EXPECT_NE(res->body.find("action=\"/go\""), std::string::npos);
  EXPECT_NE(res->body.find("action=\"/try\""), std::string::npos);
  EXPECT_NE(res->body.find("href=\"/models/facebook/dinov2-small\""), std::string::npos);
  EXPECT_NE(res->body.find("src=\"/static/app.js\""), std::string::npos);
}

TEST_F(ServerPages, ModelPageHeadlineMatchesTheJsonTwin) {
  auto page = live->client().Get("/models/facebook/dinov2-small");
  expect_html_page(page);
  auto json = live->client().Get("/models/facebook/dinov2-small.json");
  ASSERT_TRUE(json);
  ASSERT_EQ(json->status, 200);
  const auto j = body_json(json);
  EXPECT_EQ(j["schema"], "neurarch.report/v1");
  const auto& html = page->body;
  EXPECT_EQ(figure(html, "parameters-derived"), std::to_string(j["parameters"]["derived"].get<std::int64_t>()));
  EXPECT_EQ(figure(html, "full-device-bytes"), std::to_string(j["plan"]["full"]["device_bytes"].get<std::int64_t>()));
  EXPECT_EQ(figure(html, "lora-device-bytes"), std::to_string(j["plan"]["lora"]["device_bytes"].get<std::int64_t>()));
  EXPECT_EQ(figure(html, "forward-pass"), "true");
  EXPECT_EQ(figure(html, "layers"), std::to_string(j["layer_count"].get<int>()));
  EXPECT_EQ(figure(html, "cheapest-card"), j["plan"]["cost"]["card"]);
  // Charts, card table, structure, findings; the change history is absent without a tracker.
  EXPECT_NE(html.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_NE(html.find("id=\"batch-chart-title\""), std::string::npos);
  EXPECT_NE(html.find("H100-80GB"), std::string::npos);
  EXPECT_NE(html.find("<details class=\"structure\""), std::string::npos);
  EXPECT_NE(html.find("What the verifier says"), std::string::npos);
  EXPECT_EQ(html.find("Change history"), std::string::npos);
  EXPECT_NE(html.find("neurarch-trace facebook/dinov2-small --plan"), std::string::npos);
}

TEST_F(ServerPages, MarkdownTwinSaysTheSame) {
  auto res = live->client().Get("/models/facebook/dinov2-small.md");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_NE(res->get_header_value("Content-Type").find("text/markdown"), std::string::npos);
  EXPECT_EQ(res->body.rfind("# facebook/dinov2-small", 0), 0u);
  EXPECT_NE(res->body.find("22,056,576"), std::string::npos);
  EXPECT_NE(res->body.find("## Training plan"), std::string::npos);
}

TEST_F(ServerPages, QueryOptionsReachThePlanner) {
  auto res = live->client().Get("/models/facebook/dinov2-small.json?batch=8&qlora=true");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const auto j = body_json(res);
  EXPECT_EQ(j["plan"]["full"]["batch"], 8);
  EXPECT_EQ(j["plan"]["lora"]["mode"], "qlora");
  auto page = live->client().Get("/models/facebook/dinov2-small?batch=8");
  ASSERT_TRUE(page);
  EXPECT_NE(page->body.find("--batch 8"), std::string::npos);
  EXPECT_NE(page->body.find(".json?batch=8"), std::string::npos);
  expect_json_error(live->client().Get("/models/facebook/dinov2-small.json?batch=0"), 400, "invalid_option");
  expect_json_error(live->client().Get("/models/facebook/dinov2-small.json?nonsense=1"), 400, "invalid_option");
  // A key that is not UTF-8 is echoed as U+FFFD, not a 500 (the server fuzzer's finding).
  expect_json_error(live->client().Get("/models/facebook/dinov2-small.json?%ff%0a=1"), 400, "invalid_option");
  expect_html_page(live->client().Get("/models/facebook/dinov2-small?batch=x"), 400);
}

TEST_F(ServerPages, OrgLessLegacyIdsHaveTheirPage) {
  auto res = live->client().Get("/models/gpt2");
  expect_html_page(res);
  EXPECT_NE(res->body.find("gpt2"), std::string::npos);
}

TEST_F(ServerPages, UnknownAndInvalidModelsAreErrors) {
  expect_html_page(live->client().Get("/models/nobody/nothing"), 404);
  expect_json_error(live->client().Get("/models/nobody/nothing.json"), 404, "not_found");
  expect_json_error(live->client().Get("/models/a--b/c.json"), 400, "invalid_model_id");
  expect_json_error(live->client().Get("/models/-bad/name.json"), 400, "invalid_model_id");
  // An encoded slash decodes into a path with more segments: no route has it.
  auto traversal = live->client().Get("/models/..%2F..%2Fetc/passwd");
  ASSERT_TRUE(traversal);
  EXPECT_TRUE(traversal->status == 404 || traversal->status == 400) << traversal->status;
  EXPECT_EQ(traversal->body.find("root:"), std::string::npos);
}

TEST_F(ServerPages, ModelThatDoesNotForwardPassStillHasItsPageButNoPlan) {
  // seq beyond GPT-2's 1024 learned positions: the graph says No, and why.
  auto res = live->client().Get("/models/gpt2.json?seq=4096");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const auto j = body_json(res);
  EXPECT_FALSE(j["forward_pass"]["ok"]);
  EXPECT_TRUE(j["plan"].is_null());
  auto page = live->client().Get("/models/gpt2?seq=4096");
  expect_html_page(page);
  EXPECT_EQ(figure(page->body, "forward-pass"), "false");
  auto badge = live->client().Get("/api/v1/badge/gpt2?seq=4096");
  ASSERT_TRUE(badge);
  EXPECT_EQ(body_json(badge)["color"], "red");
}

TEST_F(ServerPages, BadgeIsAShieldsEndpoint) {
  auto res = live->client().Get("/api/v1/badge/facebook/dinov2-small");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  const auto j = body_json(res);
  EXPECT_EQ(j["schemaVersion"], 1);
  EXPECT_EQ(j["label"], "neurarch");
  EXPECT_EQ(j["color"], "brightgreen");
  EXPECT_TRUE(std::regex_match(j["message"].get<std::string>(), std::regex("full FT [0-9.]+ GiB · fits T4")))
      << j["message"];
  // An 8B model needs a big card for a full fine-tune; on a T4 alone nothing of it fits.
  auto big = body_json(live->client().Get("/api/v1/badge/meta-llama/Meta-Llama-3-8B"));
  EXPECT_EQ(big["message"].get<std::string>().find("fits T4"), std::string::npos) << big.dump();
  auto t4 = body_json(live->client().Get("/api/v1/badge/meta-llama/Meta-Llama-3-8B?card=T4"));
  EXPECT_EQ(t4["color"], "orange") << t4.dump();
  EXPECT_NE(t4["message"].get<std::string>().find("no single card"), std::string::npos) << t4.dump();
  expect_json_error(live->client().Get("/api/v1/badge/nobody/nothing"), 404, "not_found");
  expect_json_error(live->client().Get("/api/v1/badge/a--b/c"), 400, "invalid_model_id");
}

TEST_F(ServerPages, CardCatalogueWithSources) {
  auto res = live->client().Get("/cards");
  expect_html_page(res);
  EXPECT_NE(res->body.find("H100-80GB"), std::string::npos);
  EXPECT_NE(res->body.find("datasheet"), std::string::npos);
  auto json = live->client().Get("/cards.json");
  ASSERT_TRUE(json);
  const auto j = body_json(json);
  ASSERT_GE(j["cards"].size(), 5u);
  for (const auto& c : j["cards"]) {
    EXPECT_TRUE(c["source"].is_string());
    EXPECT_GT(c["memory_bytes"].get<std::int64_t>(), 0);
  }
}

TEST_F(ServerPages, StylesheetAndScriptAreServedAsFiles) {
  auto css = live->client().Get("/static/html.css");
  ASSERT_TRUE(css);
  EXPECT_EQ(css->status, 200);
  EXPECT_NE(css->get_header_value("Content-Type").find("text/css"), std::string::npos);
  EXPECT_NE(css->body.find(".headline"), std::string::npos);
  auto js = live->client().Get("/static/app.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->status, 200);
  EXPECT_NE(js->get_header_value("Content-Type").find("javascript"), std::string::npos);
  auto other = live->client().Get("/static/../../etc/passwd");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->status, 404);
}

TEST_F(ServerPages, ModelFormRedirectsToThePage) {
  auto res = live->client().Get("/go?model=facebook/dinov2-small");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 303);
  EXPECT_EQ(res->get_header_value("Location"), "/models/facebook/dinov2-small");
  expect_html_page(live->client().Get("/go?model=http://evil.example/x"), 400);
}

TEST_F(ServerPages, OverlongRequestLineIsRefused) {
  auto res = live->client().Get("/models/" + std::string(20000, 'a'));
  ASSERT_TRUE(res);
  EXPECT_GE(res->status, 400);
  EXPECT_LT(res->status, 500);
}

TEST(ServerChangeHistory, SectionAppearsOnlyWithAProvider) {
  ChangeHistoryProvider provider = [](const std::string& id) -> std::optional<std::vector<render::ChangeRow>> {
    if (id != "facebook/dinov2-small") return std::nullopt;
    return std::vector<render::ChangeRow>{{"2025-05-01", "0123456789abcdef0123", "num_hidden_layers 12 -> 24 <b>"}};
  };
  LiveServer live(LiveServer::test_options(), provider);
  auto tracked = live.client().Get("/models/facebook/dinov2-small");
  ASSERT_TRUE(tracked);
  EXPECT_NE(tracked->body.find("Change history"), std::string::npos);
  EXPECT_NE(tracked->body.find("num_hidden_layers 12 -&gt; 24 &lt;b&gt;"), std::string::npos);
  EXPECT_NE(tracked->body.find("0123456789ab"), std::string::npos);
  auto untracked = live.client().Get("/models/gpt2");
  ASSERT_TRUE(untracked);
  EXPECT_EQ(untracked->body.find("Change history"), std::string::npos);
}

// A model in the local Hugging Face cache is served; its folders never appear in an answer.
TEST(ServerHfCache, ServesCachedModelsWithoutRevealingPaths) {
  const auto cache = fresh_temp_dir("hfcache");
  const std::string commit(40, 'a');
  auto write = [](const std::filesystem::path& p, const std::string& text) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
  };
  write(cache / "models--testorg--tiny-dino" / "refs" / "main", commit);
  write(cache / "models--testorg--tiny-dino" / "snapshots" / commit / "config.json", dinov2_small_config());
  write(cache / "models--testorg--broken" / "refs" / "main", commit);
  write(cache / "models--testorg--broken" / "snapshots" / commit / "config.json", "{\"model_type\": \"dinov2\", ");
  auto options = LiveServer::test_options();
  options.hub_cache = cache;
  LiveServer live(options);
  auto res = live.client().Get("/models/testorg/tiny-dino.json");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200) << res->body;
  const auto j = body_json(res);
  EXPECT_EQ(j["model"]["source"], "hf-cache");
  EXPECT_EQ(j["model"]["revision"], commit);
  EXPECT_EQ(j["model"]["config"], "config.json of testorg/tiny-dino");
  EXPECT_EQ(res->body.find(cache.string()), std::string::npos);
  auto broken = live.client().Get("/models/testorg/broken.json");
  expect_json_error(broken, 422, "invalid_config");
  EXPECT_EQ(broken->body.find(cache.string()), std::string::npos);
  auto index = body_json(live.client().Get("/index.json"));
  bool listed = false;
  for (const auto& m : index["models"]) listed |= m["id"] == "testorg/tiny-dino";
  EXPECT_TRUE(listed);
  std::filesystem::remove_all(cache);
}

}  // namespace
}  // namespace neurarch::server::testing
