#pragma once
// Our derived tensor table against a checkpoint's headers: the tensor-level diff a user reads to
// see why two totals differ. Known, legitimate differences are named rather than left as noise.
#include <optional>
#include <string>
#include <vector>

#include "checkpoint/safetensors.hpp"
#include "graph/graph.hpp"

namespace neurarch::checkpoint {

struct TensorFacts {
  std::string name;
  std::vector<std::int64_t> shape;
  DType dtype = DType::F32;
};

struct Mismatch {
  std::string name;
  TensorFacts ours;
  TensorFacts checkpoint;
  std::string reason;  ///< "shape" | "dtype" | "shape and dtype"
};

struct UnexpectedTensor {
  TensorFacts tensor;
  std::string explanation;  ///< why a file may legitimately hold it; "" when unexplained
};

struct Comparison {
  std::int64_t checkpoint_scalars = 0;
  std::vector<std::string> files;
  std::vector<TensorFacts> missing;            ///< we derive it; the file lacks it
  std::vector<UnexpectedTensor> unexpected;    ///< the file holds it; we do not derive it
  std::vector<Mismatch> mismatched;
  std::vector<std::string> notes;              ///< prefix or tying differences resolved while matching
  bool exact() const { return missing.empty() && unexpected.empty() && mismatched.empty(); }
};

/// Names in a layout the graph's checkpoint_renames cover are compared as the reference loads them.
Comparison compare(const graph::Graph& graph, const Checkpoint& checkpoint);

}  // namespace neurarch::checkpoint
