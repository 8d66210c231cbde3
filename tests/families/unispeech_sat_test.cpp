#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(UniSpeechSat, "unispeech-sat")
