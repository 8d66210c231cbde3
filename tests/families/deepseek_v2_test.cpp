#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(DeepseekV2, "deepseek_v2")
