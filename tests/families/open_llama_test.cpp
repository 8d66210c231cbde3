#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(OpenLlama, "open-llama")
