#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(SamHqVisionModel, "sam_hq_vision_model")
