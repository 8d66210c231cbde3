#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(FalconMamba, "falcon_mamba")
