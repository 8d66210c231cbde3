#include "support/groundtruth.hpp"

NEURARCH_GROUNDTRUTH_TEST(TimeSeriesTransformer, "time_series_transformer")
