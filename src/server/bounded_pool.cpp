#include "server/bounded_pool.hpp"

#include <algorithm>

namespace neurarch::server {

BoundedPool::BoundedPool(std::size_t threads, std::size_t queue_limit) : queue_limit_(std::max<std::size_t>(1, queue_limit)) {
  for (std::size_t i = 0; i < std::max<std::size_t>(1, threads); ++i) threads_.emplace_back([this] { work(); });
}

BoundedPool::~BoundedPool() { shutdown(); }

void BoundedPool::enqueue(std::function<void()> fn) {
  std::unique_lock lock(mutex_);
  has_room_.wait(lock, [this] { return stopping_ || jobs_.size() < queue_limit_; });
  if (stopping_) {
    // The job owns the accepted socket; running it is the only way to close that socket.
    lock.unlock();
    fn();
    return;
  }
  jobs_.push_back(std::move(fn));
  has_job_.notify_one();
}

void BoundedPool::shutdown() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  has_job_.notify_all();
  has_room_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

void BoundedPool::work() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      has_job_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
      // Accepted connections are still served on shutdown, as httplib's own pool does.
      if (jobs_.empty()) return;
      job = std::move(jobs_.front());
      jobs_.pop_front();
      has_room_.notify_one();
    }
    job();
  }
}

}  // namespace neurarch::server
