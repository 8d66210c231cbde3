#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Qwen3Moe, "qwen3_moe")
