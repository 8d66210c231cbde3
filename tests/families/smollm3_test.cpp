#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Smollm3, "smollm3")
