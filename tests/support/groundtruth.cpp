#include "support/groundtruth.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"

namespace neurarch::testing {
namespace fs = std::filesystem;

std::optional<fs::path> groundtruth_root() {
  if (const char* env = std::getenv("NEURARCH_GROUNDTRUTH"); env && fs::is_directory(env)) return fs::path(env);
  fs::path p = fs::path(NEURARCH_SOURCE_DIR) / ".." / "shared" / "groundtruth";
  if (fs::is_directory(p)) return fs::canonical(p);
  return std::nullopt;
}

namespace {
nlohmann::json load(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(standardize_python_json(text.str()));
}

const std::vector<GroundTruthCase>& index() {
  static const std::vector<GroundTruthCase> cases = [] {
    std::vector<GroundTruthCase> out;
    std::vector<fs::path> folders{fs::path(NEURARCH_SOURCE_DIR) / "tests" / "data" / "reference"};
    if (auto root = groundtruth_root()) {
      folders.push_back(*root / "defaults");
      folders.push_back(*root / "real");
    }
    for (const auto& folder : folders) {
      if (!fs::is_directory(folder)) continue;
      for (const auto& e : fs::recursive_directory_iterator(folder)) {
        if (!e.is_regular_file() || e.path().extension() != ".json") continue;
        auto j = load(e.path());
        if (!j.contains("tensors") || !j.contains("config")) continue;
        out.push_back({e.path(), j.value("model_type", ""), j.value("class", "")});
      }
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.file < b.file; });
    return out;
  }();
  return cases;
}

std::string shape_text(const std::vector<std::int64_t>& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }
}  // namespace

std::vector<GroundTruthCase> all_cases() { return index(); }

std::vector<GroundTruthCase> cases_for(const std::string& model_type) {
  std::vector<GroundTruthCase> out;
  for (const auto& c : index())
    if (c.model_type == model_type) out.push_back(c);
  return out;
}

std::optional<graph::Graph> build_case(const GroundTruthCase& c) {
  const auto j = load(c.file);
  try {
    Config config(j["config"], c.file.filename().string());
    model::BuildOptions options;
    options.class_name = c.class_name;
    return model::build_model(config, options).graph;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

int check_every_case(const std::function<std::string(const graph::Graph&)>& check) {
  std::set<std::string> failed_types;
  int checked = 0;
  for (const auto& c : index()) {
    if (failed_types.count(c.model_type)) continue;
    const auto g = build_case(c);
    if (!g) continue;
    ++checked;
    const auto wrong = check(*g);
    if (wrong.empty()) continue;
    ADD_FAILURE() << c.model_type << " (" << c.file.filename().string() << "): " << wrong;
    failed_types.insert(c.model_type);
  }
  return checked;
}

std::string compare_with_groundtruth(const GroundTruthCase& c) {
  auto j = load(c.file);
  std::ostringstream diff;
  try {
    Config config(j["config"], c.file.filename().string());
    model::BuildOptions options;
    options.class_name = c.class_name;
    options.param_dtype = DType::F32;  // the reference builds in torch's default dtype
    auto built = model::build_model(config, options);

    std::map<std::string, const graph::TensorSpec*> ours;
    for (const auto& t : built.graph.tensors)
      if (t.saved()) {
        if (ours.count(t.name)) diff << "duplicate tensor " << t.name << "\n";
        ours[t.name] = &t;
      }
    std::map<std::string, std::string> buffer_dtypes;
    if (j.contains("buffer_dtypes"))
      for (auto& [k, v] : j["buffer_dtypes"].items()) buffer_dtypes[k] = v.get<std::string>();

    for (auto& [name, shape_json] : j["tensors"].items()) {
      auto shape = shape_json.get<std::vector<std::int64_t>>();
      auto it = ours.find(name);
      if (it == ours.end()) {
        diff << "missing " << name << " " << shape_text(shape) << "\n";
        continue;
      }
      if (it->second->shape != shape)
        diff << "shape " << name << ": ours " << shape_text(it->second->shape) << ", reference " << shape_text(shape)
             << "\n";
      std::string want = "F32";
      if (auto b = buffer_dtypes.find(name); b != buffer_dtypes.end()) {
        auto d = dtype_from_torch(b->second);
        want = d ? std::string(dtype_name(*d)) : b->second;
      }
      if (dtype_name(it->second->dtype) != want)
        diff << "dtype " << name << ": ours " << dtype_name(it->second->dtype) << ", reference " << want << "\n";
      ours.erase(it);
    }
    for (const auto& [name, t] : ours) diff << "unexpected " << name << " " << shape_text(t->shape) << "\n";
    auto total = j["total_scalars"].get<std::int64_t>();
    if (built.graph.saved_scalars() != total)
      diff << "total: ours " << built.graph.saved_scalars() << ", reference " << total << "\n";
  } catch (const std::exception& e) {
    diff << "build failed: " << e.what() << "\n";
  }
  return diff.str();
}

}  // namespace neurarch::testing
