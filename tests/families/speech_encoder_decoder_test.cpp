#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(SpeechEncoderDecoder, "speech-encoder-decoder")
