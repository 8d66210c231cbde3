#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Data2VecText, "data2vec-text")
