#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(UniSpeech, "unispeech")
