#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Dinov2, "dinov2")
