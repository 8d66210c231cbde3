#pragma once
// A strict RFC 4180 reader for measured-calibration files. Every field remembers the line and
// byte column it starts at, so a bad value can be reported as "file:line:column: ...". Lines that
// start with '#' outside a quoted field are comments (test fixtures label themselves that way).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace neurarch::calibration {

/// Bounds for untrusted CSV input, checked while reading.
inline constexpr std::uint64_t kMaxCsvBytes = 64ull << 20;
inline constexpr std::size_t kMaxCsvFieldBytes = 4096;
inline constexpr std::size_t kMaxCsvColumns = 256;
inline constexpr std::size_t kMaxCsvRecords = 1'000'000;

struct CsvField {
  std::string text;
  int line = 0;    ///< 1-based line the field starts on
  int column = 0;  ///< 1-based byte column the field starts at
};

struct CsvRecord {
  int line = 0;
  std::vector<CsvField> fields;
};

struct CsvTable {
  std::string origin;  ///< the file name errors are reported under
  std::vector<std::string> header;
  std::vector<CsvRecord> records;  ///< data records, header excluded
  /// Index of `name` in the header, or -1.
  int column(std::string_view name) const;
};

/// Parses `text` (one file). Throws neurarch::Error(InvalidInput, "origin:line:column", why) for
/// an unterminated quote, text after a closing quote, a record whose field count differs from the
/// header's, an empty or duplicated header name, or any size limit exceeded.
CsvTable parse_csv(std::string_view text, const std::string& origin);

}  // namespace neurarch::calibration
