#include <filesystem>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "db/sqlite.hpp"

using neurarch::db::Database;

TEST(Sqlite, MigratesOnceAndKeepsData) {
  auto path = std::filesystem::temp_directory_path() / "neurarch_sqlite_test.db";
  std::filesystem::remove(path);
  std::vector<std::string> migrations = {"CREATE TABLE t(id INTEGER PRIMARY KEY, name TEXT NOT NULL)"};
  {
    Database db(path.string());
    db.migrate(migrations);
    EXPECT_EQ(db.schema_version(), 1);
    db.prepare("INSERT INTO t(name) VALUES(?)").bind(1, std::string_view("a")).run();
  }
  migrations.push_back("ALTER TABLE t ADD COLUMN extra TEXT");
  Database db(path.string());
  db.migrate(migrations);
  EXPECT_EQ(db.schema_version(), 2);
  auto st = db.prepare("SELECT name, extra FROM t");
  ASSERT_TRUE(st.step());
  EXPECT_EQ(st.column_text(0), "a");
  EXPECT_FALSE(st.column_optional_text(1).has_value());
  EXPECT_FALSE(st.step());
  std::filesystem::remove(path);
}

TEST(Sqlite, RefusesANewerSchemaAndRollsBackFailedMigrations) {
  Database db(":memory:");
  db.exec("PRAGMA user_version=5");
  EXPECT_THROW(db.migrate({"CREATE TABLE a(x)"}), neurarch::Error);
  Database fresh(":memory:");
  EXPECT_THROW(fresh.migrate({"CREATE TABLE a(x)", "THIS IS NOT SQL"}), neurarch::Error);
  EXPECT_EQ(fresh.schema_version(), 1);
}
