#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Exaone4, "exaone4")
