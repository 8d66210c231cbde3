#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Gemma3Text, "gemma3_text")
