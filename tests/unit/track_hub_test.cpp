// Tracking through the Hub's commit-listing and tree APIs (a fake Hub on loopback serving a real
// scripted git repository) classifies exactly as tracking the local clone does.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "track/hub_source.hpp"

#ifdef NEURARCH_HAVE_HTTPLIB
#include <httplib.h>

#include <sstream>
#include <thread>

#include "track/git_source.hpp"
#include "track/lfs.hpp"
#include "track/osv.hpp"
#include "track/store.hpp"
#include "track/tracker.hpp"
#include "track/views.hpp"
#include "unit/track_fixture.hpp"
#endif

using namespace neurarch;
namespace fx = neurarch::testing;
using nlohmann::json;

TEST(TrackHub, ReadsTheHubsDates) {
  EXPECT_EQ(track::parse_hub_time("2024-01-05T00:00:00.000Z"), 1704412800);
  EXPECT_EQ(track::parse_hub_time("yesterday"), 0);
}

#ifdef NEURARCH_HAVE_HTTPLIB
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, sep);) out.push_back(part);
  return out;
}

// Serves a git repository as the Hub's API shows it: two commits per page, LFS files with their
// real size and oid in the tree listing.
class FakeCommitApi {
 public:
  explicit FakeCommitApi(fx::ScriptedRepo& repo) : repo_(repo) {
    server_.Get(R"(/api/models/org/tiny/commits/main)", [this](const httplib::Request& req, httplib::Response& res) {
      const auto log = split(repo_.git("log --first-parent --format=%H%x09%ct%x09%s main"), '\n');
      const std::size_t page = req.has_param("p") ? std::stoul(req.get_param_value("p")) : 0;
      json out = json::array();
      for (std::size_t i = page * 2; i < log.size() && i < page * 2 + 2; ++i) {
        const auto f = split(log[i], '\t');
        out.push_back({{"id", f[0]}, {"title", f[2]}, {"date", track::rfc3339(std::stoll(f[1]))},
                       {"authors", {{{"user", "Tester"}}}}});
      }
      res.set_content(out.dump(), "application/json");
    });
    server_.Get(R"(/api/models/org/tiny/tree/([0-9a-f]+))", [this](const httplib::Request& req, httplib::Response& res) {
      json out = json::array();
      for (const auto& line : split(repo_.git("ls-tree -l " + req.matches[1].str()), '\n')) {
        const auto tab = line.find('\t');
        const auto fields = split(line.substr(0, tab), ' ');
        std::vector<std::string> f;
        for (const auto& x : fields)
          if (!x.empty()) f.push_back(x);
        const std::string path = line.substr(tab + 1);
        json e = {{"type", "file"}, {"oid", f[2]}, {"size", std::stoll(f[3])}, {"path", path}};
        const std::string content = repo_.git("show " + req.matches[1].str() + ":" + path);
        if (track::looks_like_lfs_pointer(content)) {
          try {
            const auto p = track::parse_lfs_pointer(content, path);
            e["lfs"] = {{"oid", p.oid.substr(7)}, {"size", p.size}, {"pointerSize", content.size()}};
            e["size"] = p.size;
          } catch (const std::exception&) {
            // The Hub refuses invalid pointers at push time; serve the file as plain git content.
          }
        }
        out.push_back(e);
      }
      res.set_content(out.dump(), "application/json");
    });
    server_.Get(R"(/org/tiny/resolve/([0-9a-f]+)/(.+))", [this](const httplib::Request& req, httplib::Response& res) {
      res.set_content(repo_.git("show " + req.matches[1].str() + ":" + req.matches[2].str()), "application/octet-stream");
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ~FakeCommitApi() {
    server_.stop();
    thread_.join();
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  fx::ScriptedRepo& repo_;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
};

std::vector<std::string> classification(const json& history) {
  std::vector<std::string> out;
  for (const auto& r : history.at("revisions")) {
    std::string line = r.at("commit").get<std::string>().substr(0, 8) + ":";
    for (const auto& c : r.at("changes")) {
      line += ' ';
      line += c.at("kind").get<std::string>();
      line += '/';
      line += c.at("subject").get<std::string>();
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace

TEST(TrackHub, TheCommitApiGivesTheSameClassificationAsTheClone) {
  fx::ScriptedRepo repo("hub_api");
  fx::script_history(repo, 0, 8);
  FakeCommitApi api(repo);
  track::HubSourceOptions options;
  options.hub.endpoint = api.endpoint();
  options.hub.token = "";
  track::HubSource hub_source("org/tiny", "main", options);
  track::Store via_hub(":memory:");
  const auto result = track::track(hub_source, via_hub, {"org/tiny", "hub"});
  EXPECT_EQ(result.new_revisions, 8u);
  EXPECT_EQ(result.breaking, 6u);  // r2: 1, r3: 3, r4: 1, r7: 1

  track::Store via_git(":memory:");
  track::GitSource git_source(repo.dir());
  track::track(git_source, via_git, {"org/tiny"});
  EXPECT_EQ(classification(*track::history_json(via_hub, "org/tiny")), classification(*track::history_json(via_git, "org/tiny")));
  EXPECT_EQ(track::history_json(via_hub, "org/tiny")->at("url"), api.endpoint() + "/org/tiny");

  // A second run asks for the first page only and finds nothing new.
  track::HubSource again("org/tiny", "main", options);
  EXPECT_EQ(track::track(again, via_hub, {"org/tiny", "hub"}).new_revisions, 0u);
}
#endif
