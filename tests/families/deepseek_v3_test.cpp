#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(DeepseekV3, "deepseek_v3")
