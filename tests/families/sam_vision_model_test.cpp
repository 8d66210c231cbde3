#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(SamVisionModel, "sam_vision_model")
