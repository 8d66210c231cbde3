// THE table: model_type -> family. Adding a family is one file in this folder, one line here and
// one test file under tests/families/.
#include <algorithm>
#include <array>

#include "families/family.hpp"

namespace neurarch::families {

const Family& dinov2_family();
// encoder families (declarations)
const Family& bert_family();
const Family& roberta_family();
const Family& xlm_roberta_family();
const Family& distilbert_family();
const Family& camembert_family();
const Family& data2vec_text_family();
const Family& roberta_prelayernorm_family();
const Family& xlm_roberta_xl_family();
const Family& ernie_family();
const Family& megatron_bert_family();
// decoder families (declarations)
// vision families (declarations)

namespace {

struct RegistryRow {
  std::string_view model_type;
  const Family& (*family)();
};

// clang-format off
const RegistryRow kRegistry[] = {
    {"dinov2",                 dinov2_family},
    // encoder families (rows)
    {"bert",                   bert_family},
    {"roberta",                roberta_family},
    {"xlm-roberta",            xlm_roberta_family},
    {"distilbert",             distilbert_family},
    {"camembert",              camembert_family},
    {"data2vec-text",          data2vec_text_family},
    {"roberta-prelayernorm",   roberta_prelayernorm_family},
    {"xlm-roberta-xl",         xlm_roberta_xl_family},
    {"ernie",                  ernie_family},
    {"megatron-bert",          megatron_bert_family},
    // decoder families (rows)
    // vision families (rows)
};
// clang-format on

}  // namespace

const Family* find_family(std::string_view model_type) {
  for (const auto& row : kRegistry)
    if (row.model_type == model_type) return &row.family();
  return nullptr;
}

std::vector<std::string> supported_model_types() {
  std::vector<std::string> out;
  for (const auto& row : kRegistry) out.emplace_back(row.model_type);
  std::sort(out.begin(), out.end());
  return out;
}

std::string model_type_for_class(std::string_view class_name) {
  for (const auto& row : kRegistry)
    for (const auto& c : row.family().classes)
      if (c.name == class_name) return std::string(row.model_type);
  return {};
}

}  // namespace neurarch::families
