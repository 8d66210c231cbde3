#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(LlavaNextVideo, "llava_next_video")
