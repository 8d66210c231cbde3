// What the server will mount and the CLI prints, over a tracked scripted history: OSV advisories,
// the history JSON, the all-models feed (JSON and Atom), the badge and the model page's rows.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "track/git_source.hpp"
#include "track/osv.hpp"
#include "track/store.hpp"
#include "track/tracker.hpp"
#include "track/views.hpp"
#include "unit/track_fixture.hpp"

using namespace neurarch;
namespace fx = neurarch::testing;
using neurarch::testing::ScriptedRepo;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

struct Tracked {
  ScriptedRepo repo{"views"};
  std::vector<std::string> commits;
  track::Store store{":memory:"};
  Tracked() {
    commits = fx::script_history(repo, 0, 5);
    repo.write("README.md", "# tiny\n\nSee <script>alert(1)</script> | pipes\n");
    repo.commit("docs: <script>alert(1)</script> | a pipe", fx::kDay0 + 5 * fx::kDay);
    track::GitSource source(repo.dir());
    track::track(source, store, {"org/tiny"});
  }
};

struct CliRun {
  int code;
  std::string out, err;
};

CliRun run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "neurarch-trace");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  std::istringstream in;
  const int code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err, in);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST(TrackViews, AdvisoriesFollowTheOsvSchema) {
  Tracked t;
  const json h = *track::history_json(t.store, "org/tiny");
  const json& change = h.at("revisions")[4].at("changes")[0];
  ASSERT_EQ(change.at("kind"), "chat-template-changed");
  const std::string id = change.at("advisory").get<std::string>();
  EXPECT_TRUE(id.starts_with("NEURARCH-") && id.size() == 9 + 16) << id;
  const json osv = *track::advisory_json(t.store, id);
  EXPECT_EQ(osv.at("schema_version"), "1.6.0");
  EXPECT_EQ(osv.at("id"), id);
  EXPECT_EQ(osv.at("published"), "2024-01-05T00:00:00Z");
  EXPECT_EQ(osv.at("modified"), "2024-01-05T00:00:00Z");
  EXPECT_EQ(osv.at("summary"), "org/tiny: chat template 'default' changed (tokenizer_config.json)");
  const json& affected = osv.at("affected")[0];
  EXPECT_EQ(affected.at("package").at("name"), "org/tiny");
  EXPECT_EQ(affected.at("package").at("purl"), "pkg:huggingface/org/tiny");
  EXPECT_EQ(affected.at("ranges")[0].at("type"), "GIT");
  EXPECT_EQ(affected.at("ranges")[0].at("repo"), "file://" + t.repo.dir().string());
  EXPECT_EQ(affected.at("ranges")[0].at("events"), (json::array({{{"introduced", t.commits[4]}}})));
  EXPECT_EQ(osv.at("references")[0].at("url"), "https://huggingface.co/org/tiny");
  const json& db = osv.at("database_specific");
  EXPECT_EQ(db.at("category"), "chat_template");
  EXPECT_EQ(db.at("kind"), "chat-template-changed");
  EXPECT_EQ(db.at("severity"), "breaking");
  EXPECT_EQ(db.at("parent"), t.commits[3]);
  const std::string details = osv.at("details").get<std::string>();
  EXPECT_NE(details.find("```diff\n--- a/chat_template (tokenizer_config.json)"), std::string::npos) << details;
  EXPECT_NE(details.find("revision=\"" + t.commits[3] + "\""), std::string::npos);
  EXPECT_FALSE(track::advisory_json(t.store, "NEURARCH-0000000000000000"));
  // Tracking the same history again gives the same ids.
  track::Store again(":memory:");
  track::GitSource source(t.repo.dir());
  track::track(source, again, {"org/tiny"});
  EXPECT_EQ(*track::advisory_json(again, id), osv);
}

TEST(TrackViews, FeedListsChangesNewestFirstAsJsonAndAtom) {
  Tracked t;
  const json feed = track::feed_json(t.store, {3, false, "https://example.org"});
  EXPECT_EQ(feed.at("schema"), "neurarch.change-feed/v1");
  ASSERT_EQ(feed.at("changes").size(), 3u);
  EXPECT_EQ(feed.at("changes")[0].at("kind"), "chat-template-changed");
  EXPECT_EQ(feed.at("changes")[0].at("model"), "org/tiny");
  EXPECT_EQ(feed.at("changes")[0].at("link"), "https://example.org/models/org/tiny/changes");
  EXPECT_EQ(feed.at("changes")[1].at("kind"), "vocabulary-changed");  // the tokenizer swap, a day older
  const json breaking = track::feed_json(t.store, {100, true, "https://example.org"});
  EXPECT_EQ(breaking.at("changes").size(), 5u);  // r2: 1, r3: 3, r4: 1
  for (const auto& c : breaking.at("changes")) EXPECT_TRUE(c.at("breaking").get<bool>());

  const std::string atom = track::feed_atom(t.store, {100, true, "https://example.org"});
  EXPECT_TRUE(atom.starts_with("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<feed xmlns=\"http://www.w3.org/2005/Atom\">"));
  EXPECT_NE(atom.find("<updated>2024-01-05T00:00:00Z</updated>"), std::string::npos);
  std::size_t entries = 0;
  for (std::size_t at = atom.find("<entry>"); at != std::string::npos; at = atom.find("<entry>", at + 1)) ++entries;
  EXPECT_EQ(entries, 5u);
  EXPECT_NE(atom.find("special token &quot;&lt;/s&gt;&quot; (id 2) removed"), std::string::npos) << atom;
  EXPECT_EQ(atom.find("\"</s>\""), std::string::npos);  // nothing unescaped
  EXPECT_NE(atom.find("<link href=\"https://example.org/api/v1/advisories/NEURARCH-"), std::string::npos);
  EXPECT_TRUE(atom.ends_with("</feed>\n"));
}

TEST(TrackViews, BadgeAgesWithTheLastBreakingChange) {
  Tracked t;
  const std::int64_t at = fx::kDay0 + 4 * fx::kDay;  // the chat-template change
  EXPECT_EQ(*track::badge_json(t.store, "org/tiny", at + 86400),
            (json{{"schemaVersion", 1}, {"label", "last breaking change"}, {"message", "2024-01-05 chat-template-changed"}, {"color", "red"}}));
  EXPECT_EQ(track::badge_json(t.store, "org/tiny", at + 20 * 86400)->at("color"), "orange");
  EXPECT_EQ(track::badge_json(t.store, "org/tiny", at + 100 * 86400)->at("color"), "yellow");
  EXPECT_EQ(track::badge_json(t.store, "org/tiny", at + 400 * 86400)->at("color"), "yellowgreen");
  EXPECT_FALSE(track::badge_json(t.store, "org/absent", at));

  ScriptedRepo quiet("badge_quiet");
  fx::script_history(quiet, 0, 2);
  track::Store store(":memory:");
  track::GitSource source(quiet.dir());
  track::track(source, store, {"org/quiet"});
  EXPECT_EQ(track::badge_json(store, "org/quiet", at)->at("message"), "none");
  EXPECT_EQ(track::badge_json(store, "org/quiet", at)->at("color"), "brightgreen");
}

TEST(TrackViews, RowsAreEscapedForHtmlAndMarkdown) {
  Tracked t;
  // The README-only commit has no changes; give the special-token rows a look instead.
  const auto rows = *track::history_rows(t.store, "org/tiny");
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows.front().kind, "chat-template-changed");  // newest first
  EXPECT_EQ(rows.front().date, "2024-01-05");
  EXPECT_EQ(rows.front().commit_short, t.commits[4].substr(0, 12));
  bool found = false;
  for (const auto& r : rows)
    if (r.kind == "special-token-removed") {
      found = true;
      EXPECT_EQ(r.summary_html, "special token &quot;&lt;/s&gt;&quot; (id 2) removed");
      EXPECT_EQ(r.summary_markdown, "special token \"\\</s\\>\" (id 2) removed");
      EXPECT_TRUE(r.breaking);
      EXPECT_TRUE(r.advisory_id.starts_with("NEURARCH-"));
    }
  EXPECT_TRUE(found);
  EXPECT_EQ(track::escape_html("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&apos;x&apos;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(track::escape_markdown("a | b\n*c* [d](e) `f`"), "a \\| b<br>\\*c\\* \\[d\\](e) \\`f\\`");
  EXPECT_FALSE(track::history_rows(t.store, "org/absent"));
}

TEST(TrackViews, CommandLineTracksPrintsAndWritesOsvFiles) {
  ScriptedRepo repo("cli");
  fx::script_history(repo, 0, 5);
  repo.git("remote add origin https://huggingface.co/org/tiny-cli");
  const fs::path dir = repo.dir().parent_path() / ("neurarch_track_cli_out_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string db = (dir / "changes.db").string();

  CliRun r = run_cli({"track", repo.dir().string(), "--db", db, "--progress", "never"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("org/tiny-cli: 5 new revisions up to ")) << r.out;
  EXPECT_NE(r.out.find(", 5 breaking"), std::string::npos) << r.out;
  r = run_cli({"track", repo.dir().string(), "--db", db, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).at("new_revisions"), 0);

  r = run_cli({"changes", "org/tiny-cli", "--db", db});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("org/tiny-cli: 5 revisions from https://huggingface.co/org/tiny-cli, 5 breaking changes\n")) << r.out;
  EXPECT_NE(r.out.find("    breaking chat_template chat template 'default' changed (tokenizer_config.json)  [NEURARCH-"), std::string::npos)
      << r.out;
  r = run_cli({"changes", "org/tiny-cli", "--db", db, "--format", "markdown", "--breaking-only"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("| Date | Commit | Severity | Category | Change | Advisory |"), std::string::npos);
  EXPECT_NE(r.out.find("```diff\n--- a/chat_template"), std::string::npos);
  EXPECT_EQ(r.out.find("key-changed"), std::string::npos);
  EXPECT_EQ(r.out.find("rope_scaling"), std::string::npos);  // info rows left out
  r = run_cli({"changes", "org/tiny-cli", "--db", db, "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out).at("schema"), "neurarch.changes/v1");

  const fs::path osv_dir = dir / "osv";
  r = run_cli({"changes", "org/tiny-cli", "--db", db, "--osv", osv_dir.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "org/tiny-cli: 5 advisories written to " + osv_dir.string() + "\n");
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(osv_dir)) {
    ++files;
    std::ifstream in(e.path());
    const json osv = json::parse(in);
    EXPECT_EQ(e.path().filename().string(), osv.at("id").get<std::string>() + ".json");
    for (const char* key : {"schema_version", "id", "modified", "published", "summary", "details", "affected", "references",
                            "database_specific"})
      EXPECT_TRUE(osv.contains(key)) << key;
    EXPECT_EQ(osv.at("references")[0].at("url").get<std::string>().rfind("https://huggingface.co/org/tiny-cli/commit/", 0), 0u);
  }
  EXPECT_EQ(files, 5u);

  r = run_cli({"changes", "org/never", "--db", db});
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err, "neurarch-trace changes: error: org/never: not tracked in " + db + "; run neurarch-trace track first\n");
  r = run_cli({"track", dir.string(), "--db", db, "--id", "org/x"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("not a git repository"), std::string::npos) << r.err;
  r = run_cli({"track", "not-a-path-or-id", "--db", db});
  EXPECT_EQ(r.code, 3);
  fs::remove_all(dir);
}
