// The change tracker's routes over real HTTP: a scripted history tracked into a store file, served
// by a live server, read back as history, advisory, feed (JSON and Atom), badge and page section.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "server/server_fixture.hpp"
#include "track/git_source.hpp"
#include "track/store.hpp"
#include "track/tracker.hpp"
#include "unit/track_fixture.hpp"

using namespace neurarch;
using nlohmann::json;
using server::testing::LiveServer;

namespace {

std::string tracked_store() {
  static const std::string path = [] {
    auto dir = server::testing::fresh_temp_dir("changes");
    const std::string file = (dir / "changes.db").string();
    neurarch::testing::ScriptedRepo repo{"served"};
    neurarch::testing::script_history(repo, 0, 5);
    track::Store store(file);
    track::GitSource source(repo.dir());
    track::track(source, store, {"org/tiny"});
    return file;
  }();
  return path;
}

server::ServerOptions with_changes() {
  auto o = LiveServer::test_options();
  o.changes_db = tracked_store();
  return o;
}

}  // namespace

TEST(ServerChanges, HistoryAdvisoryFeedAndBadge) {
  LiveServer live(with_changes());
  auto c = live.client();

  auto history = c.Get("/models/org/tiny/changes");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->status, 200) << history->body;
  const json h = json::parse(history->body);
  EXPECT_EQ(h.at("model"), "org/tiny");
  std::string advisory_id;
  for (const auto& rev : h.at("revisions"))
    for (const auto& ch : rev.at("changes"))
      if (ch.contains("advisory") && ch.at("advisory").is_string()) advisory_id = ch.at("advisory");
  ASSERT_FALSE(advisory_id.empty()) << "the scripted history has a breaking change";

  auto advisory = c.Get("/api/v1/advisories/" + advisory_id);
  ASSERT_TRUE(advisory);
  ASSERT_EQ(advisory->status, 200);
  const json osv = json::parse(advisory->body);
  EXPECT_EQ(osv.at("id"), advisory_id);
  EXPECT_TRUE(osv.contains("schema_version"));
  EXPECT_TRUE(osv.contains("affected"));

  auto feed = c.Get("/changes");
  ASSERT_TRUE(feed);
  ASSERT_EQ(feed->status, 200);
  EXPECT_FALSE(json::parse(feed->body).at("changes").empty());

  auto atom = c.Get("/changes.atom");
  ASSERT_TRUE(atom);
  ASSERT_EQ(atom->status, 200);
  EXPECT_NE(atom->get_header_value("Content-Type").find("application/atom+xml"), std::string::npos);
  EXPECT_NE(atom->body.find("<feed"), std::string::npos);
  auto negotiated = c.Get("/changes", {{"Accept", "application/atom+xml"}});
  ASSERT_TRUE(negotiated);
  EXPECT_EQ(negotiated->body.substr(0, 40), atom->body.substr(0, 40));

  auto badge = c.Get("/api/v1/badge/changes/org/tiny");
  ASSERT_TRUE(badge);
  ASSERT_EQ(badge->status, 200);
  const json b = json::parse(badge->body);
  EXPECT_EQ(b.at("schemaVersion"), 1);
  EXPECT_FALSE(b.at("message").get<std::string>().empty());
}

TEST(ServerChanges, UnknownModelsAdvisoriesAndNoStoreAre404) {
  LiveServer live(with_changes());
  auto c = live.client();
  auto untracked = c.Get("/models/org/other/changes");
  ASSERT_TRUE(untracked);
  EXPECT_EQ(untracked->status, 404);
  EXPECT_EQ(json::parse(untracked->body).at("error").at("code"), "not_found");
  auto advisory = c.Get("/api/v1/advisories/NEURARCH-0000");
  ASSERT_TRUE(advisory);
  EXPECT_EQ(advisory->status, 404);
  auto bad = c.Get("/api/v1/badge/changes/..%2F/x");
  ASSERT_TRUE(bad);
  EXPECT_GE(bad->status, 400);

  LiveServer bare;  // no tracker store configured
  auto none = bare.client().Get("/changes");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
}
