#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(BertGeneration, "bert-generation")
