#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(MT5, "mt5")
