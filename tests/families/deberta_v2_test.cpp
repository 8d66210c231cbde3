#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(DebertaV2, "deberta-v2")
