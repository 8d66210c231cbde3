#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(DonutSwin, "donut-swin")
