#include "server/share_store.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "core/sha256.hpp"

namespace neurarch::server {
namespace {
constexpr std::size_t kIdLength = 32;

const std::vector<std::string>& migrations() {
  static const std::vector<std::string> m = {
      "CREATE TABLE shared_reports ("
      "  id TEXT PRIMARY KEY,"
      "  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),"
      "  model TEXT NOT NULL,"
      "  report_json TEXT NOT NULL,"
      "  page_html TEXT NOT NULL,"
      "  page_markdown TEXT NOT NULL)",
  };
  return m;
}
}  // namespace

ShareStore::ShareStore(const std::string& db_path) : db_(db_path) {
  db_.migrate(migrations());
}

bool ShareStore::is_valid_id(const std::string& id) {
  return id.size() == kIdLength &&
         std::all_of(id.begin(), id.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); });
}

std::string ShareStore::id_for(const std::string& model, const std::string& report_json, const std::string& page_html,
                              const std::string& page_markdown) {
  // Each part after its length, so no two splits of the same bytes hash alike.
  std::string content;
  for (const std::string* part : {&model, &report_json, &page_html, &page_markdown})
    content += std::to_string(part->size()) + ':' + *part;
  return sha256_hex(content).substr(0, kIdLength);
}

std::string ShareStore::put(const std::string& model, const std::string& report_json, const std::string& page_html,
                            const std::string& page_markdown) {
  const std::string id = id_for(model, report_json, page_html, page_markdown);
  std::lock_guard lock(mutex_);
  auto insert = db_.prepare(
      "INSERT OR IGNORE INTO shared_reports (id, model, report_json, page_html, page_markdown) VALUES (?, ?, ?, ?, ?)");
  insert.bind(1, std::string_view(id))
      .bind(2, std::string_view(model))
      .bind(3, std::string_view(report_json))
      .bind(4, std::string_view(page_html))
      .bind(5, std::string_view(page_markdown));
  insert.run();
  return id;
}

std::optional<SharedReport> ShareStore::get(const std::string& id) {
  if (!is_valid_id(id)) return std::nullopt;
  std::lock_guard lock(mutex_);
  auto q = db_.prepare(
      "SELECT id, created_at, model, report_json, page_html, page_markdown FROM shared_reports WHERE id = ?");
  q.bind(1, std::string_view(id));
  if (!q.step()) return std::nullopt;
  return SharedReport{q.column_text(0), q.column_text(1), q.column_text(2),
                      q.column_text(3), q.column_text(4), q.column_text(5)};
}

std::int64_t ShareStore::count() {
  std::lock_guard lock(mutex_);
  auto q = db_.prepare("SELECT COUNT(*) FROM shared_reports");
  q.step();
  return q.column_int(0);
}

}  // namespace neurarch::server
