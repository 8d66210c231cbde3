#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(M2M100, "m2m_100")
