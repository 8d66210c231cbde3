#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Qwen3, "qwen3")
