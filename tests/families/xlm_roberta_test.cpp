#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(XlmRoberta, "xlm-roberta")
