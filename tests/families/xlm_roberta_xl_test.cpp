#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(XlmRobertaXl, "xlm-roberta-xl")
