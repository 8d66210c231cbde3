#pragma once
// One error type for every user-facing failure. `where` names the file, key or byte offset so the
// message can be printed as a single actionable line: "<where>: <message>".
#include <stdexcept>
#include <string>

namespace neurarch {

enum class ErrorKind {
  InvalidInput,   // malformed JSON, missing/absurd keys, hostile headers
  NotFound,       // model id, file or class that does not exist
  Unsupported,    // a model_type or class we do not build (yet)
  Io,             // the OS refused a read or write
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, std::string where, const std::string& message)
      : std::runtime_error(where.empty() ? message : where + ": " + message),
        kind_(kind),
        where_(std::move(where)) {}
  ErrorKind kind() const noexcept { return kind_; }
  const std::string& where() const noexcept { return where_; }

 private:
  ErrorKind kind_;
  std::string where_;
};

}  // namespace neurarch
