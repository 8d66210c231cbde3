# The change tracker (src/track) reads local clones with libgit2. Debian: libgit2-dev.
find_package(PkgConfig REQUIRED)
pkg_check_modules(NEURARCH_LIBGIT2 REQUIRED IMPORTED_TARGET libgit2)
target_link_libraries(neurarch_src_track PRIVATE PkgConfig::NEURARCH_LIBGIT2)
