#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(UMT5, "umt5")
