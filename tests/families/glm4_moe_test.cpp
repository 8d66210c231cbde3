#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Glm4Moe, "glm4_moe")
