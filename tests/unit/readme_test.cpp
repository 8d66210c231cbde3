// The README is the manual: its list of supported model types must be the registry's.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "families/family.hpp"

TEST(Readme, ListsEverySupportedModelType) {
  std::ifstream in(std::string(NEURARCH_SOURCE_DIR) + "/README.md");
  ASSERT_TRUE(in) << "README.md not found";
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& type : neurarch::families::supported_model_types())
    EXPECT_NE(text.str().find("`" + type + "`"), std::string::npos) << type << " is missing from the README";
}
