#include "model/build.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "core/edit_distance.hpp"
#include "core/error.hpp"
#include "model/declared_sizes.hpp"

namespace neurarch::model {
namespace {

const families::ClassDef* find_class(const families::Family& family, std::string_view name) {
  for (const auto& c : family.classes)
    if (c.name == name) return &c;
  return nullptr;
}

bool same_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Remote-code configs spell the class their own way (PhiMoEForCausalLM, MPTForCausalLM,
// LlavaLlamaForCausalLM): the same name in another case is the same class; else the family's class with
// the same head ("ForCausalLM") builds what the checkpoint holds. Null when neither exists.
const families::ClassDef* find_class_like(const families::Family& family, std::string_view arch, bool& same_name) {
  same_name = true;
  for (const auto& c : family.classes)
    if (same_ignoring_case(c.name, arch)) return &c;
  same_name = false;
  const auto head = arch.rfind("For");
  if (head == std::string_view::npos) return nullptr;
  const std::string_view suffix = arch.substr(head);
  for (const auto& c : family.classes)
    if (c.name.size() >= suffix.size() && same_ignoring_case(c.name.substr(c.name.size() - suffix.size()), suffix))
      return &c;
  return nullptr;
}

std::string class_list(const families::Family& family) {
  std::vector<std::string_view> names;
  for (const auto& c : family.classes) names.push_back(c.name);
  return fmt::format("{}", fmt::join(names, ", "));
}

DType declared_dtype(const Config& config, const BuildOptions& options) {
  if (options.param_dtype) return *options.param_dtype;
  if (const auto* v = config.raw({"torch_dtype", "dtype"}); v && v->is_string()) {
    auto d = dtype_from_torch(v->get<std::string>());
    if (d && (*d == DType::F32 || *d == DType::F16 || *d == DType::BF16 || *d == DType::F64)) return *d;
  }
  return DType::F32;
}

}  // namespace

BuiltModel build_model(const Config& config, const BuildOptions& options) {
  // From the config's numbers alone, before anything is built: an absurd config fails here in microseconds.
  check_declared_sizes(config, options);
  std::string model_type = config.model_type();
  if (model_type.empty()) model_type = families::model_type_for_class(config.first_architecture());
  if (model_type.empty())
    throw Error(ErrorKind::InvalidInput, config.origin() + ": key 'model_type'",
                "missing required key (and architectures[0] names no class we know)");
  const families::Family* family = families::find_family(model_type);
  if (!family) {
    // Four hundred names make no one-line error: the nearest few (a typo is an edit or two), and where
    // the rest are listed.
    const auto supported = families::supported_model_types();
    const std::string typed = model_type.substr(0, 64);  // the distance is quadratic in what was typed
    const std::size_t max_edits = std::max<std::size_t>(1, typed.size() / 4);
    std::vector<std::pair<std::size_t, std::string>> near;
    for (const auto& t : supported)
      if (const auto d = edit_distance(typed, t); d <= max_edits) near.emplace_back(d, t);
    std::sort(near.begin(), near.end());
    std::vector<std::string> names;
    for (std::size_t i = 0; i < near.size() && i < 3; ++i) names.push_back(near[i].second);
    throw Error(ErrorKind::Unsupported, config.origin() + ": key 'model_type'",
                fmt::format("model_type {:?} is not supported ({} are: neurarch-trace --list-model-types){}",
                            typed, supported.size(),
                            names.empty() ? "" : fmt::format("; did you mean {}?", fmt::join(names, ", "))));
  }

  const families::ClassDef* cls = nullptr;
  std::string note;
  if (!options.class_name.empty()) {
    cls = find_class(*family, options.class_name);
    if (!cls)
      throw Error(ErrorKind::Unsupported, "--class",
                  fmt::format("class '{}' is not built for model_type '{}'; available: {}", options.class_name,
                              model_type, class_list(*family)));
  } else if (auto arch = config.first_architecture(); !arch.empty()) {
    cls = find_class(*family, arch);
    bool same_name = false;
    if (!cls && (cls = find_class_like(*family, arch, same_name)) && !same_name)
      note = fmt::format("architectures[0] is '{}', which transformers does not define for '{}'; building {}, the class "
                         "with the same head",
                         arch, model_type, cls->name);
    if (!cls)
      note = fmt::format("architectures[0] is '{}', which neurarch does not build for '{}'; showing the base class {} "
                         "(available: {})",
                         arch, model_type, family->classes.front().name, class_list(*family));
  }
  if (!cls) cls = &family->classes.front();

  families::BuildInput input{config, std::string(cls->name), cls->head, options.seq, options.image_size,
                             options.target_seq};
  if (options.seq && *options.seq <= 0)
    throw Error(ErrorKind::InvalidInput, "--seq", fmt::format("sequence length must be positive, got {}", *options.seq));
  if (options.target_seq && *options.target_seq <= 0)
    throw Error(ErrorKind::InvalidInput, "--target-seq",
                fmt::format("target sequence length must be positive, got {}", *options.target_seq));
  if (options.image_size && *options.image_size <= 0)
    throw Error(ErrorKind::InvalidInput, "--image-size",
                fmt::format("image size must be positive, got {}", *options.image_size));

  graph::GraphBuilder builder(declared_dtype(config, options));
  auto last = family->build(input, builder);
  if (!note.empty()) builder.note(note);
  return BuiltModel{builder.finish(last), model_type, std::string(cls->name), family};
}

}  // namespace neurarch::model
