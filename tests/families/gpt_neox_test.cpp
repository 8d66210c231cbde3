#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(GptNeox, "gpt_neox")
