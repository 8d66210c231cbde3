// model_type -> family, from the one list in families.def. Adding a family is one file in this
// folder and one line there (docs/ADD_A_FAMILY.md).
#include <algorithm>
#include <array>

#include "families/family.hpp"
#include "families/listing.hpp"

namespace neurarch::families {

#define FAMILY(name, ...) const Family& name##_family();
#include "families/families.def"
#undef FAMILY

namespace registry_impl {
namespace {

// A family's model types: its own first, then the aliases the reference maps to the same classes.
constexpr std::size_t kMaxModelTypes = 4;

struct RegistryRow {
  const Family& (*family)();
  std::array<std::string_view, kMaxModelTypes> model_types;
};

const RegistryRow kRegistry[] = {
#define FAMILY(name, ...) {name##_family, {__VA_ARGS__}},
#include "families/families.def"
#undef FAMILY
};

// Visits every (model_type, family) pair in the table's order.
template <typename F>
void for_each_model_type(F&& f) {
  for (const auto& row : kRegistry)
    for (auto type : row.model_types)
      if (!type.empty()) f(type, row.family);
}

}  // namespace
}  // namespace registry_impl
using namespace registry_impl;

const Family* find_family(std::string_view model_type) {
  const Family* found = nullptr;
  registry_impl::for_each_model_type([&](std::string_view type, const Family& (*family)()) {
    if (!found && type == model_type) found = &family();
  });
  return found;
}

std::vector<std::string> supported_model_types() {
  std::vector<std::string> out;
  registry_impl::for_each_model_type([&](std::string_view type, const Family& (*)()) { out.emplace_back(type); });
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<ArchitectureListing> supported_architectures() {
  std::vector<ArchitectureListing> out;
  registry_impl::for_each_model_type([&](std::string_view type, const Family& (*family)()) {
    const Family& f = family();
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& a) { return a.family == f.id; });
    if (it == out.end()) {
      ArchitectureListing listing{std::string(f.id), std::string(f.reference), {}, {}};
      for (const auto& c : f.classes) listing.classes.emplace_back(c.name);
      out.push_back(std::move(listing));
      it = std::prev(out.end());
    }
    it->model_types.emplace_back(type);
  });
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.family < b.family; });
  return out;
}

std::string model_type_for_class(std::string_view class_name) {
  for (const auto& row : registry_impl::kRegistry)
    for (const auto& c : row.family().classes)
      if (c.name == class_name) return std::string(row.model_types.front());
  return {};
}

}  // namespace neurarch::families
