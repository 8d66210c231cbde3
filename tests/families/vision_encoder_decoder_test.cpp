#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(VisionEncoderDecoder, "vision-encoder-decoder")
