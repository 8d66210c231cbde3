#pragma once
// Shared reports, stored in SQLite so a /p/{id} link outlives the process. The id is the content
// hash of everything a link shows (label, report JSON, page, Markdown): the same share twice is one
// row and one link, and a link can never point at other content. The page is not a function of the
// JSON alone (it prints the command that reproduces it, as the request spelled it: `--seq 255` and
// `--seq 256` give one JSON for an image model), so hashing the JSON alone let a second share get
// the first one's page (found by fuzz/server_fuzzer.cpp).
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "db/sqlite.hpp"

namespace neurarch::server {

struct SharedReport {
  std::string id;
  std::string created_at;  ///< UTC, ISO 8601
  std::string model;       ///< the label it was shared under
  std::string report_json;
  std::string page_html;   ///< render::html fragment at share time: the link shows what was shared
  std::string page_markdown;
};

class ShareStore {
 public:
  explicit ShareStore(const std::string& db_path);
  /// Stores the report (once per content) and returns its id.
  std::string put(const std::string& model, const std::string& report_json, const std::string& page_html,
                  const std::string& page_markdown);
  std::optional<SharedReport> get(const std::string& id);
  std::int64_t count();

  /// 32 lowercase hex digits (128 bits of SHA-256): what /p/{id} accepts.
  static bool is_valid_id(const std::string& id);
  static std::string id_for(const std::string& model, const std::string& report_json, const std::string& page_html,
                            const std::string& page_markdown);

 private:
  std::mutex mutex_;  // one connection, used by every worker in turn
  db::Database db_;
};

}  // namespace neurarch::server
