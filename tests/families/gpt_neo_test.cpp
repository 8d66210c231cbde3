#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(GptNeo, "gpt_neo")
