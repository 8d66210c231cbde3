#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Qwen2, "qwen2")
