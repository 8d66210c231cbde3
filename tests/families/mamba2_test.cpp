#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Mamba2, "mamba2")
