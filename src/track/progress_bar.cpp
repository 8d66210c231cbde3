#include "track/progress_bar.hpp"

#include <unistd.h>

#include <iostream>

#include <fmt/format.h>

namespace neurarch::track {

std::string ProgressBar::line(const std::string& label, std::size_t done, std::size_t total, std::size_t width) {
  const std::size_t filled = total ? std::min(width, done * width / total) : width;
  return fmt::format("{} [{}{}] {}/{} revisions", label, std::string(filled, '#'), std::string(width - filled, '.'), done, total);
}

void ProgressBar::start(std::string label, std::size_t total) {
  label_ = std::move(label);
  done_ = 0;
  total_ = total;
  last_ = {};
  draw();
}

void ProgressBar::advance() {
  ++done_;
  const auto now = std::chrono::steady_clock::now();
  if (done_ == total_ || now - last_ >= std::chrono::milliseconds(100)) draw();
}

void ProgressBar::draw() {
  if (out_ == nullptr) return;
  last_ = std::chrono::steady_clock::now();
  *out_ << '\r' << line(label_, done_, total_) << "\x1b[K" << std::flush;
  drawn_ = true;
}

void ProgressBar::clear() {
  if (out_ == nullptr || !drawn_) return;
  *out_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

std::ostream* terminal_progress_stream() { return ::isatty(STDERR_FILENO) != 0 ? &std::cerr : nullptr; }

}  // namespace neurarch::track
