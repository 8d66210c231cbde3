#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(OpenaiGpt, "openai-gpt")
