#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Gemma2, "gemma2")
