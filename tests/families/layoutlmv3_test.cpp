#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(LayoutLMv3, "layoutlmv3")
