#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(MegatronBert, "megatron-bert")
