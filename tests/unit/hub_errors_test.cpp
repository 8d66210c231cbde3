// The Hub client's failures: each must be one actionable line, and retries must stay bounded.
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "hub/hub.hpp"

#ifdef NEURARCH_HAVE_HTTPLIB
#include "unit/hub_fake_server.hpp"
#include "unit/hub_test_repos.hpp"

namespace neurarch::hub {
namespace {

namespace fs = std::filesystem;
using namespace testing;
using ::testing::HasSubstr;
using ::testing::Not;

class HubErrorsTest : public HubTest {
 protected:
  // The message of the Error that fetching `repo` throws; fails the test when none is thrown.
  std::string error_of(const HubOptions& o, const std::string& repo, const std::string& rev = "") {
    try {
      HubClient(o).fetch(repo, rev);
    } catch (const Error& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
      return message;
    }
    ADD_FAILURE() << "fetching " << repo << " did not fail";
    return {};
  }
};

// A loopback port that refuses connections: bound, never listening.
class ClosedPort {
 public:
  ClosedPort() : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("cannot reserve a loopback port");
    }
    port_ = ntohs(addr.sin_port);
  }
  ~ClosedPort() { ::close(fd_); }
  ClosedPort(const ClosedPort&) = delete;
  ClosedPort& operator=(const ClosedPort&) = delete;
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  int fd_;
  int port_ = 0;
};

TEST_F(HubErrorsTest, MissingRepoIsNoAnswerSoTheResolverWordsIt) {
  HubClient client(options());
  EXPECT_FALSE(client.fetch("org/missing", ""));
  resolve::ResolveOptions ro;
  ro.hub_cache = cache();
  ro.hub = &client;
  try {
    resolve::resolve("org/missing", ro);
    FAIL() << "expected NotFound";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::NotFound);
    EXPECT_THAT(e.what(), HasSubstr("the Hub has no such model"));
  }
  auto with_token = options();
  with_token.token = "hf_someone";
  EXPECT_FALSE(HubClient(with_token).fetch("org/missing", ""));  // 404 with a token
}

TEST_F(HubErrorsTest, GatedRepoWithoutTokenSaysToSetOne) {
  const std::string message = error_of(options(), "org/gated");
  EXPECT_THAT(message, HasSubstr("gated model"));
  EXPECT_THAT(message, HasSubstr("HF_TOKEN"));
  EXPECT_THAT(message, HasSubstr(hub.endpoint() + "/org/gated"));
}

TEST_F(HubErrorsTest, GatedRepoWithARefusedToken) {
  auto o = options();
  o.token = "hf_not_granted";
  const std::string message = error_of(o, "org/gated");
  EXPECT_THAT(message, HasSubstr("token was refused (HTTP 403)"));
  o.token = kGoodToken;
  EXPECT_TRUE(HubClient(o).fetch("org/gated", ""));
}

TEST_F(HubErrorsTest, UnknownRevision) {
  EXPECT_THAT(error_of(options(), "org/single", "no-such-branch"),
              HasSubstr("revision 'no-such-branch' not found on the Hub"));
}

TEST_F(HubErrorsTest, RepoWithoutConfigJson) {
  EXPECT_THAT(error_of(options(), "org/no-config"), HasSubstr("has no config.json"));
  EXPECT_FALSE(fs::exists(cache() / "models--org--no-config" / "refs" / "main"));
}

TEST_F(HubErrorsTest, RateLimitHonoursRetryAfterThenSucceeds) {
  hub.rate_limit(1, 1);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(HubClient(options()).fetch("org/single", ""));
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900));
}

TEST_F(HubErrorsTest, RateLimitGivesUpAfterBoundedAttempts) {
  hub.rate_limit(100, 0);
  auto o = options();
  o.network.max_attempts = 3;
  const std::string message = error_of(o, "org/single");
  EXPECT_THAT(message, HasSubstr("rate-limited by the Hub (HTTP 429)"));
  EXPECT_THAT(message, HasSubstr("after 3 attempt(s)"));
  EXPECT_EQ(hub.requests(), 3);
}

TEST_F(HubErrorsTest, RetryAfterBeyondTheBoundFailsAtOnce) {
  hub.rate_limit(100, 3600);
  auto o = options();
  o.network.retry_after_max = std::chrono::seconds(5);
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(error_of(o, "org/single"), HasSubstr("asks to wait 3600 s"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(hub.requests(), 1);
}

TEST_F(HubErrorsTest, NetworkDownPointsAtOffline) {
  ClosedPort closed;
  auto o = options();
  o.endpoint = closed.endpoint();
  o.network.max_attempts = 2;
  const std::string message = error_of(o, "org/single");
  EXPECT_THAT(message, HasSubstr("cannot reach the Hub at " + closed.endpoint()));
  EXPECT_THAT(message, HasSubstr("--offline would not help"));

  ASSERT_TRUE(HubClient(options()).fetch("org/single", ""));  // now the cache has a snapshot
  EXPECT_THAT(error_of(o, "org/single", "v2"), HasSubstr("--offline --revision COMMIT would use"));
}

TEST_F(HubErrorsTest, TruncatedResponseIsRetried) {
  hub.truncate("config.json", 1);
  const auto model = HubClient(options()).fetch("org/single", "");
  ASSERT_TRUE(model);
  EXPECT_EQ(model->config_text, kConfig);
  EXPECT_EQ(hub.requests_for("config.json"), 2);
  EXPECT_EQ(incomplete_files(), 0);
}

TEST_F(HubErrorsTest, StalledServerTimesOut) {
  hub.stall("config.json", std::chrono::milliseconds(1500));
  auto o = options();
  o.network.request_timeout = std::chrono::milliseconds(300);
  o.network.max_attempts = 1;
  const std::string message = error_of(o, "org/single");
  EXPECT_THAT(message, HasSubstr("timed out"));
  EXPECT_FALSE(fs::exists(cache() / "models--org--single" / "refs" / "main"));
}

TEST_F(HubErrorsTest, HostileHeaderLengthIsRefusedBeforeFetchingIt) {
  FakeRepo bad = single_repo();
  std::string weights(64, '\0');
  weights[5] = 1;  // a header length of 2^40 in a 64-byte file
  bad.files["model.safetensors"] = {weights, true, lfs_etag(9)};
  hub.add("org/bad", bad);
  EXPECT_THAT(error_of(options(), "org/bad"), HasSubstr("is impossible for a 64-byte safetensors file"));
  EXPECT_EQ(hub.bytes_served("model.safetensors"), 8u);
  EXPECT_FALSE(fs::exists(cache() / "models--org--bad" / "refs" / "main"));
}

TEST_F(HubErrorsTest, BadIdsNeverReachTheNetwork) {
  EXPECT_THAT(error_of(options(), "../etc"), HasSubstr("not a Hub model id"));
  EXPECT_THAT(error_of(options(), "org/single", "../../x"), HasSubstr("not a valid revision"));
  EXPECT_EQ(hub.requests(), 0);
}

}  // namespace
}  // namespace neurarch::hub
#endif
