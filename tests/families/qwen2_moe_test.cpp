#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Qwen2Moe, "qwen2_moe")
