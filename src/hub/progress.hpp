#pragma once
// One self-overwriting status line on stderr while the Hub client fetches. It is drawn only on a
// terminal: in logs and pipes a stream of carriage returns is noise.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>

#include "hub/hub.hpp"

namespace neurarch::hub {

class Progress {
 public:
  explicit Progress(std::ostream* out) : out_(out) {}
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  void begin(std::string repo);
  void stage(std::string label, std::size_t total);  ///< e.g. "safetensors headers", 100 files
  void transfer_done(std::uint64_t bytes);
  void waiting(std::chrono::milliseconds delay, std::string_view why);
  void clear();  ///< erases the line, so the report starts on a clean one

 private:
  void draw(std::string_view extra = {});
  std::ostream* out_;
  std::string repo_, label_;
  std::size_t done_ = 0, total_ = 0;
  std::uint64_t bytes_ = 0;
  bool drawn_ = false;
};

/// The stream progress goes to, or nullptr for none.
std::ostream* progress_stream(ProgressMode mode, std::ostream* explicit_stream);

}  // namespace neurarch::hub
