#pragma once
// Runs the ground truth in ../shared/groundtruth (tensors save_pretrained writes, computed with
// the reference PyTorch code) against our rebuild, tensor by tensor. tests/groundtruth_test.cpp runs
// every case of every registered model type.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/graph.hpp"
#include "support/shared_data.hpp"

namespace neurarch::testing {

struct GroundTruthCase {
  std::filesystem::path file;
  std::string model_type;
  std::string class_name;
};

/// $NEURARCH_GROUNDTRUTH, else <repo>/../shared/groundtruth; nullopt when absent.
std::optional<std::filesystem::path> groundtruth_root();
/// Every case of defaults/ and real/ under groundtruth_root(), and of tests/data/reference/<model_type>/
/// (cases for model types newer than the shared fixtures, in the same format).
std::vector<GroundTruthCase> all_cases();
std::vector<GroundTruthCase> cases_for(const std::string& model_type);
/// "" when our rebuild matches the case exactly (names, shapes, dtypes, total); else a readable diff.
std::string compare_with_groundtruth(const GroundTruthCase& c);
/// Our rebuild of the case's graph; nullopt when it does not build (unsupported types are the ground-truth test's
/// business).
std::optional<graph::Graph> build_case(const GroundTruthCase& c);
/// Holds every buildable case's graph to `check` ("" when right, else what is wrong), failing once per model type.
/// Returns how many cases it checked.
int check_every_case(const std::function<std::string(const graph::Graph&)>& check);

}  // namespace neurarch::testing
