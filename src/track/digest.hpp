#pragma once
// FNV-1a (64 bit): a stable, dependency-free fingerprint for identity checks and advisory ids.
// Not a security hash: it tells equal from different, nothing more.
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

namespace neurarch::track {

class Fnv1a {
 public:
  void add(std::string_view bytes) {
    for (unsigned char c : bytes) {
      state_ ^= c;
      state_ *= 0x100000001b3ull;
    }
    // A separator keeps ("ab","c") and ("a","bc") apart.
    state_ ^= 0xff;
    state_ *= 0x100000001b3ull;
  }
  std::uint64_t value() const { return state_; }
  std::string hex() const { return fmt::format("{:016x}", state_); }

 private:
  std::uint64_t state_ = 0xcbf29ce484222325ull;
};

}  // namespace neurarch::track
