#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(SeedOss, "seed_oss")
