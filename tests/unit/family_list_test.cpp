// The one list of families (src/families/families.def) and the class names derived from the head table.
#include <algorithm>

#include <gtest/gtest.h>

#include "families/family.hpp"

namespace neurarch::families {
namespace {

TEST(FamilyList, ClassesDeriveFromThePrefixAndTheHeadTable) {
  const auto list = classes("Camembert", heads::kRoberta);
  ASSERT_EQ(list.size(), 6u);
  EXPECT_EQ(list[0].name, "CamembertModel");
  EXPECT_EQ(list[0].head, Head::Base);
  EXPECT_EQ(list[1].name, "CamembertForMaskedLM");
  EXPECT_EQ(list[1].head, Head::MaskedLM);
  EXPECT_EQ(list[5].name, "CamembertForQuestionAnswering");
  const auto ctc = classes("Hubert", {{"ForCTC", Head::CausalLM}});
  EXPECT_EQ(ctc.back().name, "HubertForCTC");
  EXPECT_EQ(classes("Align").size(), 1u);
}

TEST(FamilyList, AliasesShareTheirFamilyAndClassesMapToTheFamilysOwnType) {
  ASSERT_NE(find_family("llama"), nullptr);
  EXPECT_EQ(find_family("code_llama"), find_family("llama"));
  EXPECT_EQ(find_family("gpt-sw3"), find_family("gpt2"));
  EXPECT_EQ(model_type_for_class("LlamaForCausalLM"), "llama");
  EXPECT_EQ(model_type_for_class("GPT2LMHeadModel"), "gpt2");
  EXPECT_EQ(model_type_for_class("CamembertForMaskedLM"), "camembert");
  EXPECT_EQ(find_family("not-a-model-type"), nullptr);
}

TEST(FamilyList, EveryTypeIsListedOnceAndEveryFamilyHasClasses) {
  const auto types = supported_model_types();
  EXPECT_TRUE(std::adjacent_find(types.begin(), types.end()) == types.end());
  for (const auto& type : types) {
    const Family* f = find_family(type);
    ASSERT_NE(f, nullptr) << type;
    EXPECT_FALSE(f->classes.empty()) << type;
  }
}

}  // namespace
}  // namespace neurarch::families
