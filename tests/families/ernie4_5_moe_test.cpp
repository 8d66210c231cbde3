#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Ernie45Moe, "ernie4_5_moe")
