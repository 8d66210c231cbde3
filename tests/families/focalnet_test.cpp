#include <gtest/gtest.h>

#include "support/groundtruth.hpp"
#include "support/image_model.hpp"

NEURARCH_GROUNDTRUTH_TEST(Focalnet, "focalnet")
