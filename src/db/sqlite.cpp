#include "db/sqlite.hpp"

#include <sqlite3.h>

#include <utility>

#include "core/error.hpp"

namespace neurarch::db {
namespace {

[[noreturn]] void fail(sqlite3* db, const std::string& where, std::string_view what) {
  std::string message(what);
  if (db) message += std::string(": ") + sqlite3_errmsg(db);
  throw Error(ErrorKind::Io, where, message);
}

}  // namespace

Database::Database(const std::string& path, int busy_timeout_ms) : path_(path) {
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(ErrorKind::Io, path, "cannot open database: " + message);
  }
  sqlite3_busy_timeout(db_, busy_timeout_ms);
  // WAL lets readers (the server's pages) proceed while a writer (a share, a tracker run) commits.
  if (path != ":memory:") exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA foreign_keys=ON");
}

Database::~Database() {
  if (db_) sqlite3_close_v2(db_);
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)), path_(std::move(other.path_)) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    if (db_) sqlite3_close_v2(db_);
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
  }
  return *this;
}

void Database::exec(std::string_view sql) {
  char* message = nullptr;
  std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    std::string reason = message ? message : "unknown error";
    sqlite3_free(message);
    throw Error(ErrorKind::Io, path_, reason);
  }
}

Statement Database::prepare(std::string_view sql) { return Statement(*this, sql); }

int Database::schema_version() {
  auto st = prepare("PRAGMA user_version");
  st.step();
  return static_cast<int>(st.column_int(0));
}

void Database::migrate(const std::vector<std::string>& migrations) {
  int version = schema_version();
  if (version > static_cast<int>(migrations.size()))
    throw Error(ErrorKind::InvalidInput, path_,
                "schema version " + std::to_string(version) + " is newer than this neurarch knows (" +
                    std::to_string(migrations.size()) + "); upgrade neurarch");
  for (auto i = static_cast<std::size_t>(version); i < migrations.size(); ++i) {
    Transaction tx(*this);
    exec(migrations[i]);
    exec("PRAGMA user_version=" + std::to_string(i + 1));
    tx.commit();
  }
}

std::int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }
int Database::changes() const { return sqlite3_changes(db_); }

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (...) {
      // A failed rollback leaves SQLite to roll back when the connection closes.
    }
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

Statement::Statement(Database& db, std::string_view sql) : where_(db.path()) {
  if (sqlite3_prepare_v2(db.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
    fail(db.handle(), where_, "cannot prepare statement");
}

Statement::~Statement() {
  if (stmt_) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), where_(std::move(other.where_)) {}

Statement& Statement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail(sqlite3_db_handle(stmt_), where_, "bind");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) fail(sqlite3_db_handle(stmt_), where_, "bind");
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  if (sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8) != SQLITE_OK)
    fail(sqlite3_db_handle(stmt_), where_, "bind");
  return *this;
}

Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail(sqlite3_db_handle(stmt_), where_, "bind");
  return *this;
}

Statement& Statement::bind(int index, const std::optional<std::string>& text) {
  return text ? bind(index, std::string_view(*text)) : bind_null(index);
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(sqlite3_db_handle(stmt_), where_, "query failed");
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }
std::int64_t Statement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }
double Statement::column_double(int column) const { return sqlite3_column_double(stmt_, column); }

std::string Statement::column_text(int column) const {
  const auto* text = sqlite3_column_text(stmt_, column);
  return text ? std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)))
              : std::string();
}

std::optional<std::string> Statement::column_optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return column_text(column);
}

}  // namespace neurarch::db
