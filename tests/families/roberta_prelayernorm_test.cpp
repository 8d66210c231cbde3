#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(RobertaPreLayerNorm, "roberta-prelayernorm")
