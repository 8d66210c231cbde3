// The committed reference fixtures (tests/data/reference, transformers 5.24.0) for model types that
// ../shared/groundtruth lacks: each rebuilds to the tensor, without Python.
#include <cctype>
#include <string>

#include <gtest/gtest.h>

#include "families/family.hpp"
#include "support/groundtruth.hpp"

namespace neurarch::testing {
namespace {

class ReferenceFixture : public ::testing::TestWithParam<GroundTruthCase> {};

TEST_P(ReferenceFixture, MatchesToTheTensor) { EXPECT_EQ(compare_with_groundtruth(GetParam()), ""); }

TEST(ReferenceFixtures, ArePresentAndEachNamesASupportedType) {
  const auto cases = reference_fixture_cases();
  ASSERT_FALSE(cases.empty()) << "tests/data/reference holds no fixture";
  for (const auto& c : cases) {
    EXPECT_NE(families::find_family(c.model_type), nullptr) << c.file << ": " << c.model_type;
    EXPECT_FALSE(c.class_name.empty()) << c.file;
  }
}

std::string case_name(const ::testing::TestParamInfo<GroundTruthCase>& info) {
  std::string name = info.param.file.stem().string() + "_" + info.param.model_type;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ReferenceFixture, ::testing::ValuesIn(reference_fixture_cases()), case_name);

}  // namespace
}  // namespace neurarch::testing
