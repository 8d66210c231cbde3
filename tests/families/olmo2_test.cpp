#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Olmo2, "olmo2")
