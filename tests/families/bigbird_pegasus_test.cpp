#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(BigBirdPegasus, "bigbird_pegasus")
