#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Ernie45, "ernie4_5")
