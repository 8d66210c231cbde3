#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Phi3, "phi3")
