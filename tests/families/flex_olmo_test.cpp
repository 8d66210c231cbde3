#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(FlexOlmo, "flex_olmo")
