#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(Data2vecVision, "data2vec-vision")
