#pragma once
// Tests that read ../shared (or need the machine's loopback name) skip with a message on a
// developer's machine that lacks it, but fail under CI (CI=true), where it must be present:
// a ground-truth suite that silently skipped there would prove nothing.
#include <cstdlib>

#include <gtest/gtest.h>

#define NEURARCH_REQUIRE(condition, what)                                                  \
  do {                                                                                     \
    if (!(condition)) {                                                                    \
      if (std::getenv("CI")) FAIL() << (what) << " (required under CI)";                  \
      GTEST_SKIP() << (what);                                                              \
    }                                                                                      \
  } while (0)
