#include "calibration/csv.hpp"

#include <set>

#include <fmt/format.h>

#include "core/error.hpp"

namespace neurarch::calibration {
namespace {

class Reader {
 public:
  Reader(std::string_view text, const std::string& origin) : s_(text), origin_(origin) {}

  CsvTable run() {
    if (s_.size() > kMaxCsvBytes)
      throw Error(ErrorKind::InvalidInput, origin_,
                  fmt::format("{} bytes is over the {} byte limit of a calibration CSV", s_.size(), kMaxCsvBytes));
    if (s_.starts_with("\xEF\xBB\xBF")) advance(3);  // a UTF-8 byte-order mark some spreadsheets write
    CsvTable t;
    t.origin = origin_;
    bool have_header = false;
    while (i_ < s_.size()) {
      if (at_line_start_skippable()) continue;
      CsvRecord r = record();
      if (!have_header) {
        std::set<std::string> seen;
        for (const auto& f : r.fields) {
          if (f.text.empty()) fail(f.line, f.column, "empty column name in the header");
          if (!seen.insert(f.text).second) fail(f.line, f.column, fmt::format("column '{}' appears twice", f.text));
          t.header.push_back(f.text);
        }
        have_header = true;
        continue;
      }
      if (r.fields.size() != t.header.size())
        fail(r.line, 1, fmt::format("expected {} fields as in the header, found {}", t.header.size(), r.fields.size()));
      if (t.records.size() >= kMaxCsvRecords)
        fail(r.line, 1, fmt::format("more than {} records", kMaxCsvRecords));
      t.records.push_back(std::move(r));
    }
    if (!have_header) throw Error(ErrorKind::InvalidInput, origin_ + ":1:1", "no header line");
    return t;
  }

 private:
  [[noreturn]] void fail(int line, int column, const std::string& why) const {
    throw Error(ErrorKind::InvalidInput, fmt::format("{}:{}:{}", origin_, line, column), why);
  }

  void advance(std::size_t n = 1) {
    i_ += n;
    column_ += static_cast<int>(n);
  }

  void newline() {
    ++line_;
    column_ = 1;
  }

  // Blank lines and '#' comment lines between records.
  bool at_line_start_skippable() {
    char c = s_[i_];
    if (c == '\n' || c == '\r') {
      end_of_line();
      return true;
    }
    if (c != '#') return false;
    while (i_ < s_.size() && s_[i_] != '\n' && s_[i_] != '\r') advance();
    if (i_ < s_.size()) end_of_line();
    return true;
  }

  void end_of_line() {
    if (s_[i_] == '\r' && i_ + 1 < s_.size() && s_[i_ + 1] == '\n') ++i_;
    ++i_;
    newline();
  }

  CsvRecord record() {
    CsvRecord r;
    r.line = line_;
    while (true) {
      if (r.fields.size() >= kMaxCsvColumns) fail(line_, column_, fmt::format("more than {} fields", kMaxCsvColumns));
      r.fields.push_back(field());
      if (i_ >= s_.size()) return r;
      char c = s_[i_];
      if (c == ',') {
        advance();
        continue;
      }
      end_of_line();  // field() stops only at ',', a line end or the end of the text
      return r;
    }
  }

  CsvField field() {
    CsvField f{{}, line_, column_};
    if (i_ < s_.size() && s_[i_] == '"') {
      const int open_line = line_, open_column = column_;
      advance();
      while (true) {
        if (i_ >= s_.size()) fail(open_line, open_column, "quoted field is never closed");
        char c = s_[i_];
        if (c == '"') {
          if (i_ + 1 < s_.size() && s_[i_ + 1] == '"') {
            append(f, '"');
            advance(2);
            continue;
          }
          advance();
          break;
        }
        append(f, c);
        if (c == '\n') {
          ++i_;
          newline();
        } else {
          advance();
        }
      }
      if (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '\n' && s_[i_] != '\r')
        fail(line_, column_, "unexpected text after a closing quote (a quote inside a field is written \"\")");
      return f;
    }
    while (i_ < s_.size()) {
      char c = s_[i_];
      if (c == ',' || c == '\n' || c == '\r') break;
      if (c == '"') fail(line_, column_, "a quote inside an unquoted field (quote the whole field and write \"\")");
      append(f, c);
      advance();
    }
    return f;
  }

  void append(CsvField& f, char c) const {
    if (f.text.size() >= kMaxCsvFieldBytes)
      fail(f.line, f.column, fmt::format("field longer than {} bytes", kMaxCsvFieldBytes));
    f.text.push_back(c);
  }

  std::string_view s_;
  const std::string& origin_;
  std::size_t i_ = 0;
  int line_ = 1, column_ = 1;
};

}  // namespace

int CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

CsvTable parse_csv(std::string_view text, const std::string& origin) { return Reader(text, origin).run(); }

}  // namespace neurarch::calibration
