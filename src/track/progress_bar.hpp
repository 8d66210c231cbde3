#pragma once
// A bar for long histories: "[#####.....] 412/1000 revisions". Drawn only on a terminal (the
// caller passes nullptr otherwise), and at most every 100 ms, so a fast run is not slowed by it.
#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <string>

namespace neurarch::track {

class ProgressBar {
 public:
  explicit ProgressBar(std::ostream* out) : out_(out) {}
  ~ProgressBar() { clear(); }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void start(std::string label, std::size_t total);
  void advance();
  void clear();  ///< erases the line so the report starts on a clean one

  /// The bar's text for `done` of `total` (no terminal codes): what advance() draws.
  static std::string line(const std::string& label, std::size_t done, std::size_t total, std::size_t width = 30);

 private:
  void draw();
  std::ostream* out_;
  std::string label_;
  std::size_t done_ = 0, total_ = 0;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_{};
};

/// stderr when it is a terminal, else nullptr.
std::ostream* terminal_progress_stream();

}  // namespace neurarch::track
