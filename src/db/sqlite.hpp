#pragma once
// A thin RAII layer over SQLite for the stores that persist across runs (shared reports, tracked
// revisions). Schemas evolve through numbered migrations recorded in PRAGMA user_version, so an
// older database file is upgraded in place rather than rejected.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace neurarch::db {

class Statement;

class Database {
 public:
  /// Opens (creating when absent) the file at `path`; ":memory:" gives a private in-memory
  /// database. Waits up to `busy_timeout_ms` for another writer instead of failing at once.
  explicit Database(const std::string& path, int busy_timeout_ms = 5000);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;

  /// Runs one or more statements that return no rows.
  void exec(std::string_view sql);
  Statement prepare(std::string_view sql);

  /// Brings the schema to `migrations.size()`: migration i (0-based) moves user_version from i to
  /// i + 1, each in its own transaction. A file from a newer neurarch (higher version) is refused.
  void migrate(const std::vector<std::string>& migrations);
  int schema_version();

  std::int64_t last_insert_rowid() const;
  int changes() const;
  const std::string& path() const { return path_; }
  sqlite3* handle() const { return db_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

/// BEGIN IMMEDIATE on construction, ROLLBACK on destruction unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

class Statement {
 public:
  Statement(Database& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;

  // Parameters are 1-based, as in SQLite.
  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_null(int index);
  Statement& bind(int index, const std::optional<std::string>& text);

  /// Advances to the next row; false when done. Errors throw.
  bool step();
  /// Runs a statement that returns no rows (INSERT/UPDATE/DELETE) and resets it for reuse.
  void run();
  void reset();

  // Columns are 0-based, as in SQLite.
  bool is_null(int column) const;
  std::int64_t column_int(int column) const;
  double column_double(int column) const;
  std::string column_text(int column) const;
  std::optional<std::string> column_optional_text(int column) const;

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string where_;
};

}  // namespace neurarch::db
