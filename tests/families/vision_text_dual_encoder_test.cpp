#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(VisionTextDualEncoder, "vision-text-dual-encoder")
