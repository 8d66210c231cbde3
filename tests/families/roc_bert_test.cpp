#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(RocBert, "roc_bert")
