#pragma once
// A token bucket per client address: `burst` requests at once, refilled at `per_minute`. When it
// tracks too many addresses it forgets the ones idle longest, so its memory is bounded too.
#include <chrono>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace neurarch::server {

class RateLimiter {
 public:
  using Clock = std::chrono::steady_clock;
  RateLimiter(double per_minute, double burst, std::size_t max_clients);

  /// nullopt: allowed (a token is spent). Otherwise the whole seconds until a token is back,
  /// for Retry-After.
  std::optional<int> acquire(const std::string& client, Clock::time_point now = Clock::now());

 private:
  struct Bucket {
    double tokens;
    Clock::time_point updated;
  };
  void forget_stalest();

  double per_second_, burst_;
  std::size_t max_clients_;
  std::mutex mutex_;
  std::unordered_map<std::string, Bucket> buckets_;
};

}  // namespace neurarch::server
