// The limits of the public server: slow clients are cut off, the worker pool and its queue are
// bounded, POST routes are rate-limited per address.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "server/bounded_pool.hpp"
#include "server/rate_limiter.hpp"
#include "server/server_fixture.hpp"

namespace neurarch::server::testing {
namespace {
using namespace std::chrono_literals;

int connect_loopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

TEST(ServerLimits, ASlowClientIsCutOffAtTheReadTimeout) {
  auto options = LiveServer::test_options();
  options.read_timeout = 1s;
  options.keep_alive_timeout = 1s;
  LiveServer live(options);
  const int fd = connect_loopback(live.port());
  ASSERT_GE(fd, 0);
  const std::string partial = "GET / HTTP/1.1\r\nHost: x\r\n";  // never finishes its headers
  ASSERT_EQ(::send(fd, partial.data(), partial.size(), 0), static_cast<ssize_t>(partial.size()));
  timeval wait{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  const auto start = std::chrono::steady_clock::now();
  // The server may answer 400 before it closes; either way the connection ends, by its timeout.
  std::string answer;
  char buf[512];
  ssize_t n = 0;
  while ((n = ::recv(fd, buf, sizeof buf, 0)) > 0) answer.append(buf, static_cast<std::size_t>(n));
  const auto waited = std::chrono::steady_clock::now() - start;
  ::close(fd);
  EXPECT_EQ(n, 0) << "closed by the server, not timed out on our side";
  EXPECT_LT(waited, 4s);
  EXPECT_GE(waited, 500ms) << "the server waited for the rest of the request";
  if (!answer.empty()) {
    EXPECT_EQ(answer.rfind("HTTP/1.1 4", 0), 0u) << answer;
  }
  // And the server still answers others.
  auto res = live.client().Get("/cards.json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
}

TEST(ServerLimits, WorkerPoolServesConcurrentClients) {
  auto options = LiveServer::test_options();
  options.threads = 2;
  options.queue_limit = 2;
  LiveServer live(options);
  std::atomic<int> ok{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 8; ++i)
    clients.emplace_back([&] {
      auto c = live.client();
      for (int k = 0; k < 5; ++k) {
        auto res = c.Get("/models/facebook/dinov2-small.json");
        if (res && res->status == 200) ++ok;
      }
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(ok, 40);
}

TEST(BoundedPool, EnqueueWaitsWhenTheQueueIsFull) {
  BoundedPool pool(1, 1);
  std::atomic<bool> release{false};
  std::atomic<int> done{0};
  pool.enqueue([&] {
    while (!release) std::this_thread::sleep_for(1ms);
    ++done;
  });
  std::this_thread::sleep_for(20ms);  // the worker has taken the first job
  pool.enqueue([&] { ++done; });      // queued: the queue is now full
  std::atomic<bool> third_enqueued{false};
  std::thread producer([&] {
    pool.enqueue([&] { ++done; });
    third_enqueued = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(third_enqueued) << "a full queue must hold the producer back";
  release = true;
  producer.join();
  EXPECT_TRUE(third_enqueued);
  pool.shutdown();
  EXPECT_EQ(done, 3);
}

TEST(RateLimiter, BurstThenRefillAtTheRate) {
  RateLimiter limiter(60, 3, 100);  // one a second, three at once
  const auto t0 = RateLimiter::Clock::time_point{} + 1h;
  for (int i = 0; i < 3; ++i) EXPECT_FALSE(limiter.acquire("a", t0)) << i;
  auto wait = limiter.acquire("a", t0);
  ASSERT_TRUE(wait);
  EXPECT_EQ(*wait, 1);
  EXPECT_FALSE(limiter.acquire("b", t0)) << "buckets are per address";
  EXPECT_FALSE(limiter.acquire("a", t0 + 1100ms));
  EXPECT_TRUE(limiter.acquire("a", t0 + 1200ms));
  EXPECT_FALSE(limiter.acquire("a", t0 + 10s));
}

TEST(RateLimiter, ForgetsTheIdlestWhenFull) {
  RateLimiter limiter(1, 1, 10);
  const auto t0 = RateLimiter::Clock::time_point{} + 1h;
  EXPECT_FALSE(limiter.acquire("old", t0));
  EXPECT_TRUE(limiter.acquire("old", t0));
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(limiter.acquire("client" + std::to_string(i), t0 + 1s + i * 1ms));
  // "old" was forgotten, so it starts with a full bucket: memory stays bounded, at worst a
  // forgotten client gets its burst again.
  EXPECT_FALSE(limiter.acquire("old", t0 + 2s));
}

}  // namespace
}  // namespace neurarch::server::testing
