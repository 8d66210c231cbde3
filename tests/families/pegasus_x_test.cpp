#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(PegasusX, "pegasus_x")
