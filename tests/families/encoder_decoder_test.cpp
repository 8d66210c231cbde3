#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(EncoderDecoder, "encoder-decoder")
