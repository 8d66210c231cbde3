#include <algorithm>
#include <nlohmann/json.hpp>

#include "families/family.hpp"

namespace neurarch::families {

std::vector<ClassDef> classes(std::string_view prefix, std::span<const HeadClass> heads) {
  std::vector<ClassDef> out{{std::string(prefix) + "Model", Head::Base}};
  for (const auto& h : heads) out.push_back({std::string(prefix) + std::string(h.suffix), h.head});
  return out;
}

std::vector<ClassDef> classes(std::string_view prefix, std::initializer_list<HeadClass> heads) {
  return classes(prefix, std::span<const HeadClass>(heads.begin(), heads.size()));
}

std::int64_t BuildInput::sequence_length(std::int64_t max_positions) const {
  if (requested_seq) return *requested_seq;
  return std::min(max_positions, kDefaultSequenceCap);
}

std::int64_t BuildInput::image_size(std::int64_t configured) const {
  return requested_image_size ? *requested_image_size : configured;
}

std::int64_t BuildInput::target_length(std::int64_t fallback) const {
  return requested_target_seq ? *requested_target_seq : fallback;
}

std::int64_t BuildInput::num_labels() const {
  if (const auto* labels = config.raw({"id2label"}); labels && labels->is_object() && !labels->empty())
    return static_cast<std::int64_t>(labels->size());
  return config.dim({"num_labels"}, 2);
}

}  // namespace neurarch::families
