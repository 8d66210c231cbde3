#pragma once
// SHA-256 (FIPS 180-4), for content-addressed ids such as shared report links and cache keys:
// collisions must be out of reach of anyone who can submit content.
#include <string>
#include <string_view>

namespace neurarch {

/// Lowercase hex digest of `data` (64 characters).
std::string sha256_hex(std::string_view data);

}  // namespace neurarch
