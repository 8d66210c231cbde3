#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Cohere2, "cohere2")
