#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Autoformer, "autoformer")
