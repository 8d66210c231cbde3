#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(GptBigcode, "gpt_bigcode")
