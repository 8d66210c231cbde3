#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Glm4, "glm4")
