#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(DistilBert, "distilbert")
