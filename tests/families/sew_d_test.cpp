#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(SEWD, "sew-d")
