#pragma once
// What `neurarch-trace serve` is started with. Every limit that protects the public server is here,
// so tests can tighten them and an operator can see them in one place.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace neurarch::server {

/// What one request may cost. A request past it is refused with 422 before or while it is built; the
/// cache holds reports up to a total size, so memory stays bounded whatever clients send.
struct RequestBudget {
  std::int64_t max_nodes = std::int64_t{1} << 18;    ///< graph nodes of one request (Kimi K2: ~5,000)
  std::int64_t max_tensors = std::int64_t{1} << 18;  ///< graph tensors of one request (Kimi K2: ~70,000)
  std::chrono::milliseconds time{10000};             ///< building and planning one report
  std::int64_t cache_units = std::int64_t{1} << 19;  ///< nodes + tensors of every cached report (~0.5 KB each)
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  ///< 0: any free port (tests)
  std::string db_path = "neurarch.db";
  /// The change tracker's store, read for change histories, advisories and the feed; "" : none.
  std::string changes_db;
  /// Local Hugging Face cache the server may read; nullopt: the environment's (HF_HUB_CACHE...).
  std::optional<std::filesystem::path> hub_cache;

  std::size_t threads = 8;          ///< worker pool size
  std::size_t queue_limit = 256;    ///< accepted connections waiting for a worker; beyond it, accept waits
  std::size_t max_body_bytes = 1u << 20;  ///< a config is kilobytes: 413 above this
  std::chrono::seconds read_timeout{5};   ///< per read of a request (slow clients are cut off)
  std::chrono::seconds write_timeout{10};
  std::chrono::seconds keep_alive_timeout{5};
  std::size_t keep_alive_max_requests = 100;

  /// Per client address on POST routes: a token bucket of `post_burst` refilled at this rate.
  double post_per_minute = 30;
  double post_burst = 10;
  std::size_t rate_limit_clients = 10000;  ///< tracked addresses; the stalest are forgotten beyond it

  std::size_t cache_entries = 512;  ///< reports kept by (config hash, options)
  RequestBudget budget;
  bool access_log = false;          ///< one line per request on stderr
};

}  // namespace neurarch::server
