#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(BlenderbotSmall, "blenderbot-small")
