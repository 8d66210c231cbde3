#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(TimmWrapper, "timm_wrapper")
