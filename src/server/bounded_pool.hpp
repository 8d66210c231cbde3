#pragma once
// cpp-httplib's own pool queues without limit; this one holds at most `queue_limit` accepted
// connections, and beyond that the accept loop waits (the kernel's backlog then pushes back on
// clients) instead of memory growing under a flood.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

namespace neurarch::server {

class BoundedPool : public httplib::TaskQueue {
 public:
  BoundedPool(std::size_t threads, std::size_t queue_limit);
  ~BoundedPool() override;
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  void work();
  std::size_t queue_limit_;
  std::mutex mutex_;
  std::condition_variable has_job_, has_room_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  bool stopping_ = false;
};

}  // namespace neurarch::server
