// The ground truth, run over the registry: every model type in src/families/families.def against every
// case of it in ../shared/groundtruth (defaults and real configs) and tests/data/reference/<model_type>/,
// tensor by tensor. A registered type without a case fails, and so does a case whose type is neither
// registered nor listed as not supported yet, so neither side can drift from the other unseen.
#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "families/family.hpp"
#include "support/groundtruth.hpp"

namespace neurarch {
namespace {

// Registered model types that have no shared fixture, and why. Such a type may still bring its own
// cases under tests/data/reference/<model_type>/ (types newer than the shared fixtures' reference).
const std::map<std::string, std::string, std::less<>> kWithoutSharedFixture = {
    {"code_llama", "a Hub alias for Llama configs: the reference registers no config class of that name"},
    {"gpt-sw3", "a Hub alias for GPT-2 configs: the reference registers only GPT-SW3's tokenizer"},
    {"nougat", "Nougat's checkpoints are VisionEncoderDecoderModels (Donut's Swin + mBART); the reference registers "
               "only its processor, and its cases are vision-encoder-decoder's"},
    {"lfm2_vl", "the reference's own spelling of lfm2-vl, whose shared cases (4.57.6) say lfm2-vl; transformers 5.24 "
                "renames the tower's tensors, so no 5.24 fixture is kept (docs/newest-models.md)"},
};

std::set<std::string, std::less<>> not_supported_yet() {
  std::set<std::string, std::less<>> out;
  std::ifstream in(std::string(NEURARCH_SOURCE_DIR) + "/tests/data/groundtruth/unsupported_model_types.txt");
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    line.erase(std::remove_if(line.begin(), line.end(), [](unsigned char ch) { return std::isspace(ch); }),
               line.end());
    if (!line.empty()) out.insert(line);
  }
  return out;
}

class GroundTruth : public ::testing::TestWithParam<std::string> {};

TEST_P(GroundTruth, EveryCaseMatchesToTheTensor) {
  NEURARCH_REQUIRE(testing::groundtruth_root(), "../shared/groundtruth not found");
  const auto cases = testing::cases_for(GetParam());
  if (!kWithoutSharedFixture.contains(GetParam())) {
    EXPECT_FALSE(cases.empty()) << "no ground-truth case for registered model type " << GetParam();
  }
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file.string());
    EXPECT_EQ(testing::compare_with_groundtruth(c), "");
  }
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  // gtest names allow only letters, digits and '_'; "lfm2-vl" and "lfm2_vl" are both registered, so a
  // hyphen gets a spelling of its own, and so does a dot ("kosmos-2.5").
  std::string name;
  for (char ch : info.param)
    name += ch == '-' ? std::string("_h_") : ch == '.' ? std::string("_d_") : std::string(1, ch);
  return name;
}

INSTANTIATE_TEST_SUITE_P(Registry, GroundTruth, ::testing::ValuesIn(families::supported_model_types()), test_name);

TEST(GroundTruthCoverage, EveryCaseIsOfARegisteredTypeOrListedAsNotSupportedYet) {
  NEURARCH_REQUIRE(testing::groundtruth_root(), "../shared/groundtruth not found");
  const auto missing = not_supported_yet();
  ASSERT_FALSE(missing.empty()) << "tests/data/groundtruth/unsupported_model_types.txt not read";
  std::set<std::string> unregistered;
  for (const auto& c : testing::all_cases())
    if (!families::find_family(c.model_type) && !missing.contains(c.model_type)) unregistered.insert(c.model_type);
  EXPECT_TRUE(unregistered.empty()) << "cases of model types neither in src/families/families.def nor in "
                                       "tests/data/groundtruth/unsupported_model_types.txt: "
                                    << ::testing::PrintToString(unregistered);
}

TEST(GroundTruthCoverage, TypesListedAsNotSupportedYetAreNotRegistered) {
  for (const auto& type : not_supported_yet())
    EXPECT_EQ(families::find_family(type), nullptr)
        << type << " is registered: delete its line from tests/data/groundtruth/unsupported_model_types.txt";
}

TEST(GroundTruthCoverage, TypesWithoutASharedFixtureAreRegistered) {
  for (const auto& [type, why] : kWithoutSharedFixture)
    EXPECT_NE(families::find_family(type), nullptr) << type << " (" << why << ") is not registered";
}

}  // namespace
}  // namespace neurarch
