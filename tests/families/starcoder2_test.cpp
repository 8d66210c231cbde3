#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Starcoder2, "starcoder2")
