#include "support/groundtruth.hpp"

// The nougat fixture is a VisionEncoderDecoderModel (donut-swin encoder, mBART decoder, enc_to_dec_proj).
NEURARCH_GROUNDTRUTH_TEST(Nougat, "nougat")
