#pragma once
// config.json -> the graph of the class it describes.
#include <optional>
#include <string>

#include "core/config.hpp"
#include "families/family.hpp"
#include "graph/graph.hpp"

namespace neurarch::model {

struct BuildOptions {
  std::string class_name;  ///< --class; empty: architectures[0], else the base class
  std::optional<std::int64_t> seq;
  std::optional<std::int64_t> image_size;
  std::optional<std::int64_t> target_seq;  ///< --target-seq: decoder length of encoder-decoders
  /// dtype the checkpoint's parameters are declared in; empty: the config's torch_dtype, else F32
  std::optional<DType> param_dtype;
};

struct BuiltModel {
  graph::Graph graph;
  std::string model_type;
  std::string class_name;
  const families::Family* family = nullptr;
};

BuiltModel build_model(const Config& config, const BuildOptions& options = {});

}  // namespace neurarch::model
