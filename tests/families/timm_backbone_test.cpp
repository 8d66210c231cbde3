#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(TimmBackbone, "timm_backbone")
