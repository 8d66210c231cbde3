// The model catalogue (docs/models.md, linked from the README) lists every supported model type.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "families/family.hpp"

TEST(Readme, ModelCatalogueListsEverySupportedModelType) {
  std::ifstream in(std::string(NEURARCH_SOURCE_DIR) + "/docs/models.md");
  ASSERT_TRUE(in) << "docs/models.md not found";
  std::stringstream text;
  text << in.rdbuf();
  for (const auto& type : neurarch::families::supported_model_types())
    EXPECT_NE(text.str().find("`" + type + "`"), std::string::npos) << type << " is missing from docs/models.md";
}

TEST(Readme, IsAManualNotACatalogue) {
  std::ifstream in(std::string(NEURARCH_SOURCE_DIR) + "/README.md");
  ASSERT_TRUE(in) << "README.md not found";
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  // The README is what a newcomer reads first: the catalogue and design notes live in docs/.
  EXPECT_LE(lines, 400) << "README.md has grown past a manual; move reference material to docs/";
}
