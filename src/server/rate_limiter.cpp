#include "server/rate_limiter.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace neurarch::server {

RateLimiter::RateLimiter(double per_minute, double burst, std::size_t max_clients)
    : per_second_(per_minute / 60.0), burst_(std::max(1.0, burst)), max_clients_(std::max<std::size_t>(1, max_clients)) {}

std::optional<int> RateLimiter::acquire(const std::string& client, Clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = buckets_.find(client);
  if (it == buckets_.end()) {
    if (buckets_.size() >= max_clients_) forget_stalest();
    it = buckets_.emplace(client, Bucket{burst_, now}).first;
  }
  auto& b = it->second;
  const double elapsed = std::chrono::duration<double>(now - b.updated).count();
  b.tokens = std::min(burst_, b.tokens + std::max(0.0, elapsed) * per_second_);
  b.updated = now;
  if (b.tokens >= 1.0) {
    b.tokens -= 1.0;
    return std::nullopt;
  }
  if (per_second_ <= 0) return 3600;
  return std::max(1, static_cast<int>(std::ceil((1.0 - b.tokens) / per_second_)));
}

// Drops the idlest tenth at once, so a flood of new addresses costs one sort per many requests.
void RateLimiter::forget_stalest() {
  std::vector<std::pair<Clock::time_point, std::string>> by_age;
  by_age.reserve(buckets_.size());
  for (const auto& [client, b] : buckets_) by_age.emplace_back(b.updated, client);
  const std::size_t drop = std::max<std::size_t>(1, by_age.size() / 10);
  std::nth_element(by_age.begin(), by_age.begin() + static_cast<std::ptrdiff_t>(drop - 1), by_age.end());
  for (std::size_t i = 0; i < drop; ++i) buckets_.erase(by_age[i].second);
}

}  // namespace neurarch::server
