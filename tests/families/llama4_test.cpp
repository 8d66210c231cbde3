#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Llama4, "llama4")
