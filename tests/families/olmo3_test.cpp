#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Olmo3, "olmo3")
