# SQLite holds what outlives one run: shared reports (server) and tracked revisions (tracker).
# Debian: libsqlite3-dev.
find_package(SQLite3 REQUIRED)
target_link_libraries(neurarch_src_db PRIVATE SQLite::SQLite3)
