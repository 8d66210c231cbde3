// Shared reports: the API, the permanent pages, the config form, persistence, and the CLI's --share.
#include <cstdio>
#include <cstdlib>
#include <regex>

#include <gtest/gtest.h>

#include "server/server_fixture.hpp"

namespace neurarch::server::testing {
namespace {

std::string url_encode(const std::string& s) {
  std::string out;
  char buf[4];
  for (unsigned char c : s) {
    if (std::isalnum(c)) {
      out += static_cast<char>(c);
    } else {
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      out += buf;
    }
  }
  return out;
}

TEST(ServerShare, ShareIsContentAddressedAndPermanent) {
  const auto dir = fresh_temp_dir("share");
  auto options = LiveServer::test_options();
  options.db_path = (dir / "shares.db").string();
  std::string id;
  {
    LiveServer live(options);
    const std::string body = R"({"config": )" + dinov2_small_config() + R"(, "name": "team dino", "batch": 2})";
    auto res = live.client().Post("/api/v1/share", body, "application/json");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 201) << res->body;
    const auto j = body_json(res);
    id = j["id"];
    EXPECT_TRUE(std::regex_match(id, std::regex("[0-9a-f]{32}")));
    EXPECT_EQ(j["path"], "/p/" + id);
    EXPECT_EQ(res->get_header_value("Location"), "/p/" + id);
    // The same content is the same link; other content is another.
    auto again = live.client().Post("/api/v1/share", body, "application/json");
    EXPECT_EQ(body_json(again)["id"], id);
    auto other = live.client().Post("/api/v1/share", R"({"model": "gpt2"})", "application/json");
    ASSERT_EQ(other->status, 201);
    EXPECT_NE(body_json(other)["id"], id);
    EXPECT_EQ(live.server().context().shares.count(), 2);
  }
  // A new process on the same database still serves the link.
  LiveServer restarted(options);
  auto page = restarted.client().Get("/p/" + id);
  ASSERT_TRUE(page);
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("team dino"), std::string::npos);
  EXPECT_NE(page->get_header_value("Cache-Control").find("immutable"), std::string::npos);
  auto json = restarted.client().Get("/p/" + id + ".json");
  ASSERT_EQ(json->status, 200);
  const auto report = body_json(json);
  EXPECT_EQ(report["model"]["id"], "team dino");
  EXPECT_EQ(report["plan"]["full"]["batch"], 2);
  auto md = restarted.client().Get("/p/" + id + ".md");
  ASSERT_EQ(md->status, 200);
  EXPECT_EQ(md->body.rfind("# team dino", 0), 0u);
  std::filesystem::remove_all(dir);
}

// Found by fuzz/server_fuzzer.cpp (seed fuzz/corpus/server/regression-share-page-differs): `seq` does not
// change an image model's report, so both bodies give one report JSON, but each page prints the command
// its request spelled. With the id hashed from the JSON alone, the second share was answered with the
// first one's link, whose page shows `--seq 256`.
TEST(ServerShare, SameReportUnderAnotherCommandIsItsOwnLink) {
  LiveServer live;
  const std::string common = R"({"model": "facebook/dinov2-small", "batch": 4, "qlora": true, "lora_rank": 8, "card": "T4", )";
  std::string ids[2];
  for (int i = 0; i < 2; ++i) {
    auto res = live.client().Post("/api/v1/share", common + (i == 0 ? R"("seq": 256})" : R"("seq": 255})"),
                                  "application/json");
    ASSERT_TRUE(res);
    ASSERT_EQ(res->status, 201) << res->body;
    ids[i] = body_json(res)["id"];
  }
  ASSERT_NE(ids[0], ids[1]);
  EXPECT_EQ(live.client().Get("/p/" + ids[0] + ".json")->body, live.client().Get("/p/" + ids[1] + ".json")->body);
  const auto first = live.client().Get("/p/" + ids[0]), second = live.client().Get("/p/" + ids[1]);
  EXPECT_NE(first->body.find("--seq 256"), std::string::npos);
  EXPECT_EQ(second->body.find("--seq 256"), std::string::npos);
  EXPECT_NE(second->body.find("--seq 255"), std::string::npos);
  // Sharing either again is still its own link, and no new row.
  auto again = live.client().Post("/api/v1/share", common + R"("seq": 255})", "application/json");
  EXPECT_EQ(body_json(again)["id"], ids[1]);
  EXPECT_EQ(live.server().context().shares.count(), 2);
}

TEST(ServerShare, UnknownAndMalformedLinks) {
  LiveServer live;
  expect_json_error(live.client().Get("/p/" + std::string(32, '0') + ".json"), 404, "not_found");
  expect_json_error(live.client().Get("/p/not-an-id.json"), 400, "invalid_id");
  auto page = live.client().Get("/p/" + std::string(32, '0'));
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 404);
  EXPECT_NE(page->get_header_value("Content-Type").find("text/html"), std::string::npos);
  expect_json_error(live.client().Post("/api/v1/share", R"({"model": "nobody/nothing"})", "application/json"), 404,
                    "not_found");
  expect_json_error(live.client().Post("/api/v1/share", "nope", "application/json"), 400, "invalid_json");
}

TEST(ServerShare, ConfigFormLandsOnThePermanentPage) {
  LiveServer live;
  auto res = live.client().Post("/try", "config=" + url_encode(dinov2_small_config()) + "&batch=&lora_rank=8&qlora=true",
                                "application/x-www-form-urlencoded");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 303) << res->body;
  const auto location = res->get_header_value("Location");
  ASSERT_TRUE(std::regex_match(location, std::regex("/p/[0-9a-f]{32}")));
  auto page = live.client().Get(location);
  ASSERT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("pasted config"), std::string::npos);
  auto json = body_json(live.client().Get(location + ".json"));
  EXPECT_EQ(json["plan"]["lora"]["mode"], "qlora");
  EXPECT_EQ(json["plan"]["lora"]["setup"]["lora_rank"], 8);
  EXPECT_EQ(json["plan"]["full"]["batch"], 1);  // the emptied field means the default

  auto bad = live.client().Post("/try", "config=" + url_encode("{not json"), "application/x-www-form-urlencoded");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->get_header_value("Content-Type").find("text/html"), std::string::npos);
  // A number no double holds is a 400 too, not a 500 (the server fuzzer's finding, on the form's path).
  auto huge = live.client().Post("/try", "config=" + url_encode(R"({"model_type": "gpt2", "n_embd": 1e400})"),
                                 "application/x-www-form-urlencoded");
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 400);
  EXPECT_NE(huge->body.find("number out of range"), std::string::npos);
  auto unsupported = live.client().Post("/try", "config=" + url_encode(R"({"model_type": "nope"})"),
                                        "application/x-www-form-urlencoded");
  EXPECT_EQ(unsupported->status, 422);
  auto wrong_type = live.client().Post("/try", "{}", "application/json");
  EXPECT_EQ(wrong_type->status, 415);
}

std::string run_cli(const std::string& args, int& status) {
  std::string out;
  FILE* pipe = ::popen((std::string(NEURARCH_TRACE_BIN) + " " + args + " 2>&1").c_str(), "r");
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
  status = WEXITSTATUS(::pclose(pipe));
  return out;
}

TEST(ServerShare, CliShareUploadsAndPrintsThePermanentLink) {
  LiveServer live;
  int status = 0;
  const std::string out =
      run_cli("facebook/dinov2-small --plan --batch 2 --share --server " + live.url() + "/", status);
  ASSERT_EQ(status, 0) << out;
  std::smatch m;
  ASSERT_TRUE(std::regex_match(out, m, std::regex(live.url() + "/p/([0-9a-f]{32})\n"))) << out;
  auto json = body_json(live.client().Get("/p/" + std::string(m[1]) + ".json"));
  EXPECT_EQ(json["model"]["id"], "facebook/dinov2-small");
  EXPECT_EQ(json["plan"]["full"]["batch"], 2);
  EXPECT_EQ(json["parameters"]["derived"], 22056576);

  // $NEURARCH_SERVER is the default server.
  ::setenv("NEURARCH_SERVER", live.url().c_str(), 1);
  const std::string from_env = run_cli("gpt2 --share", status);
  ::unsetenv("NEURARCH_SERVER");
  EXPECT_EQ(status, 0) << from_env;
  EXPECT_EQ(from_env.rfind(live.url() + "/p/", 0), 0u) << from_env;
}

TEST(ServerShare, CliShareFailuresAreOneLineAndNonZero) {
  int status = 0;
  ::unsetenv("NEURARCH_SERVER");
  auto out = run_cli("gpt2 --share", status);
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("--server"), std::string::npos) << out;
  // Nothing listens on port 1.
  out = run_cli("gpt2 --share --server http://127.0.0.1:1", status);
  EXPECT_EQ(status, 5) << out;
  out = run_cli("gpt2 --share --server ftp://example.com", status);
  EXPECT_EQ(status, 2) << out;
  LiveServer live;
  out = run_cli("gpt2 --share --batch 0 --server " + live.url(), status);
  EXPECT_EQ(status, 2) << out;
  EXPECT_NE(out.find("batch"), std::string::npos) << out;
}

}  // namespace
}  // namespace neurarch::server::testing
