#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(XlmProphetNet, "xlm-prophetnet")
