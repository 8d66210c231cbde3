#include "hub/progress.hpp"

#include <unistd.h>

#include <iostream>
#include <utility>

#include <fmt/format.h>

namespace neurarch::hub {
namespace {

std::string human_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  if (bytes < (1u << 20)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / 1024.0);
  return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
}

}  // namespace

void Progress::begin(std::string repo) {
  repo_ = std::move(repo);
  bytes_ = 0;
}

void Progress::stage(std::string label, std::size_t total) {
  label_ = std::move(label);
  done_ = 0;
  total_ = total;
  draw();
}

void Progress::transfer_done(std::uint64_t bytes) {
  ++done_;
  bytes_ += bytes;
  draw();
}

void Progress::waiting(std::chrono::milliseconds delay, std::string_view why) {
  draw(fmt::format(" - {}, retrying in {:.1f} s", why, static_cast<double>(delay.count()) / 1000.0));
}

void Progress::draw(std::string_view extra) {
  if (out_ == nullptr) return;
  // "\x1b[K" clears what a longer previous line left behind.
  *out_ << fmt::format("\rneurarch: {}: {} {}/{}, {}{}\x1b[K", repo_, label_, done_, total_, human_bytes(bytes_), extra)
        << std::flush;
  drawn_ = true;
}

void Progress::clear() {
  if (out_ == nullptr || !drawn_) return;
  *out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

std::ostream* progress_stream(ProgressMode mode, std::ostream* explicit_stream) {
  std::ostream* stream = explicit_stream != nullptr ? explicit_stream : &std::cerr;
  switch (mode) {
    case ProgressMode::Never: return nullptr;
    case ProgressMode::Always: return stream;
    case ProgressMode::Auto: return ::isatty(STDERR_FILENO) != 0 ? stream : nullptr;
  }
  return nullptr;
}

}  // namespace neurarch::hub
