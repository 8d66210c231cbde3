#pragma once
// Runs the ground truth in ../shared/groundtruth (tensors save_pretrained writes, computed with
// the reference PyTorch code) against our rebuild, tensor by tensor.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/shared_data.hpp"

namespace neurarch::testing {

struct GroundTruthCase {
  std::filesystem::path file;
  std::string model_type;
  std::string class_name;
};

/// $NEURARCH_GROUNDTRUTH, else <repo>/../shared/groundtruth; nullopt when absent.
std::optional<std::filesystem::path> groundtruth_root();
std::vector<GroundTruthCase> all_cases();
std::vector<GroundTruthCase> cases_for(const std::string& model_type);
/// The fixtures committed under tests/data/reference/<model_type>/ (same schema), for the model types the shared
/// ground truth lacks; made by tools/reference/fixtures/make_fixtures.py with the pinned transformers.
std::vector<GroundTruthCase> reference_fixture_cases();
/// "" when our rebuild matches the case exactly (names, shapes, dtypes, total); else a readable diff.
std::string compare_with_groundtruth(const GroundTruthCase& c);

}  // namespace neurarch::testing

/// One test per family: every ground-truth case of each listed model_type matches to the tensor.
#define NEURARCH_GROUNDTRUTH_TEST(Family, ...)                                                      \
  TEST(Family##GroundTruth, EveryCaseMatchesToTheTensor) {                                       \
    NEURARCH_REQUIRE(neurarch::testing::groundtruth_root(), "../shared/groundtruth not found");   \
    for (const char* model_type : {__VA_ARGS__}) {                                               \
      auto cases = neurarch::testing::cases_for(model_type);                                     \
      EXPECT_FALSE(cases.empty()) << "no ground-truth case for " << model_type;                  \
      for (const auto& c : cases) {                                                              \
        SCOPED_TRACE(c.file.string());                                                           \
        EXPECT_EQ(neurarch::testing::compare_with_groundtruth(c), "");                          \
      }                                                                                          \
    }                                                                                            \
  }
