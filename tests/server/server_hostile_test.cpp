// Hostile requests are refused at once with 422 (413 for size) and cost the server a bounded amount:
// the per-request budget, the declared-size check and the size-bounded report cache. The flood's
// memory and latency figures are measured by bench/hostile_flood.sh, not here.
#include <atomic>
#include <chrono>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "server/server_fixture.hpp"

namespace neurarch::server::testing {
namespace {

// Bodies an attacker would send, and the status each must get.
struct Hostile {
  std::string body;
  int status;
};

std::vector<Hostile> hostile_bodies() {
  std::string long_list;
  for (int i = 0; i < 20000; ++i) long_list += i ? ",512" : "512";
  return {
      {R"({"config": {"model_type": "llama", "num_hidden_layers": 100000000}})", 422},
      // The largest a request may be: 4096 layers is inside the limits, so it is built and planned.
      {R"({"config": {"model_type": "llama", "num_hidden_layers": 4096, "hidden_size": 64, "intermediate_size": 64,
          "num_attention_heads": 1, "vocab_size": 64, "max_position_embeddings": 64}})",
       200},
      {R"({"config": {"model_type": "mixtral", "num_hidden_layers": 2048, "num_local_experts": 4096}})", 422},
      {R"({"config": {"model_type": "wav2vec2", "conv_dim": [)" + long_list + "]}}", 422},
      {R"({"model": "gpt2", "seq": 1048576, "batch": 65536})", 422},
      {R"({"config": {"model_type": "gpt2", "x": )" + std::string(5000, '[') + std::string(5000, ']') + "}}", 400},
      {R"({"config": {"model_type": "gpt2", "pad": ")" + std::string(2 << 20, 'x') + "\"}}", 413},
  };
}

ServerOptions flood_options() {
  ServerOptions o = LiveServer::test_options();
  o.threads = 8;
  o.post_per_minute = 1e9;  // the flood comes from one address: measure the budget, not the rate limit
  o.post_burst = 1e9;
  return o;
}

TEST(ServerHostile, EachHostileBodyIsRefusedWithItsStatus) {
  LiveServer live(flood_options());
  for (const auto& h : hostile_bodies()) {
    SCOPED_TRACE(h.body.substr(0, 100));
    const auto res = live.client().Post("/api/v1/plan", h.body, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, h.status) << res->body.substr(0, 300);
  }
}

TEST(ServerHostile, RequestBudgetIsTheServers) {
  ServerOptions o = flood_options();
  o.budget.max_nodes = 40;  // gpt2 needs more: its estimate passes, its build stops
  const LiveServer live(o);
  const auto res = live.client().Post("/api/v1/plan", R"({"model": "gpt2"})", "application/json");
  ASSERT_TRUE(res);
  expect_json_error(res, 422, "invalid_config");
  EXPECT_NE(res->body.find("more than 40 nodes, the build limit"), std::string::npos) << res->body;
}

TEST(ServerHostile, TwoHundredConcurrentHostilePostsGetTheirStatusAndTheServerStillAnswers) {
  LiveServer live(flood_options());
  ASSERT_EQ(live.client().Get("/models/gpt2")->status, 200);  // a cached page
  // Only the refusals: each must cost milliseconds, so 200 of them on 8 workers answer at once. (The
  // largest allowed request takes seconds; bench/hostile_flood.py mixes it in and measures memory.)
  std::vector<Hostile> bodies;
  for (auto& h : hostile_bodies())
    if (h.status != 200) bodies.push_back(std::move(h));
  std::atomic<int> answered{0}, reset{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < 200; ++i)
    clients.emplace_back([&, i] {
      const auto& h = bodies[static_cast<std::size_t>(i) % bodies.size()];
      auto c = live.client();
      c.set_connection_timeout(30);
      // Part of 200 simultaneous connections are reset, more on a loaded machine (cpp-httplib's listen
      // backlog of 5; a client still sending a body past 1 MiB when its 413 comes): docs/hostile-input.md.
      // A client retries a reset connection, as HTTP clients do; what must never happen is a wrong status.
      auto res = c.Post("/api/v1/plan", h.body, "application/json");
      for (int attempt = 1; !res && attempt < 5; ++attempt) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50 * attempt));
        res = c.Post("/api/v1/plan", h.body, "application/json");
      }
      if (!res) {
        ++reset;
        return;
      }
      ++answered;
      EXPECT_EQ(res->status, h.status) << "body " << i % bodies.size() << ": " << res->body.substr(0, 200);
    });
  for (auto& t : clients) t.join();
  std::cout << "[ flood    ] " << answered << " answered with their status, " << reset << " reset five times\n";
  EXPECT_EQ(answered + reset, 200);
  EXPECT_GE(answered.load(), 190);
  EXPECT_EQ(live.client().Get("/models/gpt2")->status, 200);
}

TEST(ServerHostile, ReportCacheIsBoundedBySize) {
  ServerOptions o = flood_options();
  o.budget.cache_units = 1000;  // about two gpt2 reports
  LiveServer live(o);
  for (int batch = 1; batch <= 6; ++batch)
    ASSERT_EQ(live.client().Post("/api/v1/plan", R"({"model": "gpt2", "batch": )" + std::to_string(batch) + "}",
                                 "application/json")->status,
              200);
  const auto misses = live.server().context().reports.misses();
  // The first one was evicted: asking again traces again.
  ASSERT_EQ(live.client().Post("/api/v1/plan", R"({"model": "gpt2", "batch": 1})", "application/json")->status, 200);
  EXPECT_EQ(live.server().context().reports.misses(), misses + 1);
}

}  // namespace
}  // namespace neurarch::server::testing
