#include "calibration/cpu_rows.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace neurarch::calibration {
namespace fs = std::filesystem;

std::string CpuRow::where() const { return fmt::format("{}:{}", file, line); }

namespace {

std::vector<fs::path> jsonl_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file() && entry.path().extension() == ".jsonl") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

bool has_cpu_rows(const fs::path& dir) {
  std::error_code ec;
  return fs::is_directory(dir, ec) && !jsonl_files(dir).empty();
}

CpuRow parse_cpu_row(const std::string& text, const std::string& file, int line) {
  const std::string where = fmt::format("{}:{}", file, line);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorKind::InvalidInput, where, std::string("invalid JSON: ") + e.what());
  }
  auto need = [&](const char* key) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(key)) throw Error(ErrorKind::InvalidInput, where, fmt::format("missing '{}'", key));
    return j[key];
  };
  auto get = [&]<typename T>(const char* key, T& out) {
    try {
      out = need(key).get<T>();
    } catch (const nlohmann::json::exception&) {
      throw Error(ErrorKind::InvalidInput, where, fmt::format("'{}' has the wrong type", key));
    }
  };
  auto optional_int = [&](const char* key) -> std::optional<std::int64_t> {
    const auto& v = need(key);
    if (v.is_null()) return std::nullopt;
    if (!v.is_number_integer() || v.get<std::int64_t>() <= 0)
      throw Error(ErrorKind::InvalidInput, where, fmt::format("'{}' must be a positive integer or null", key));
    return v.get<std::int64_t>();
  };
  CpuRow r;
  r.file = file;
  r.line = line;
  std::string schema;
  get("schema", schema);
  if (schema != kCpuSchema)
    throw Error(ErrorKind::InvalidInput, where, fmt::format("schema '{}', expected '{}'", schema, kCpuSchema));
  get("model", r.model);
  get("model_type", r.model_type);
  get("class", r.class_name);
  get("config", r.config);
  get("mode", r.mode);
  get("precision", r.precision);
  get("optimizer", r.optimizer);
  get("foreach", r.foreach);
  // Rows written before the loss and the loop were recorded ran the model's loss and dropped the outputs.
  if (j.contains("loss")) get("loss", r.loss);
  if (j.contains("hold_outputs")) get("hold_outputs", r.hold_outputs);
  if (r.loss != "model" && r.loss != "logits-sum")
    throw Error(ErrorKind::InvalidInput, where, fmt::format("loss '{}' is neither 'model' nor 'logits-sum'", r.loss));
  get("attention", r.attention);
  get("batch", r.batch);
  r.seq = optional_int("seq");
  r.image_size = optional_int("image_size");
  get("trainable_parameters", r.trainable_parameters);
  get("baseline_bytes", r.baseline);
  get("forward_peak_bytes", r.forward);
  get("backward_peak_bytes", r.backward);
  get("optimizer_peak_bytes", r.optimizer_step);
  get("overall_peak_bytes", r.overall);
  get("torch", r.torch_version);
  get("transformers", r.transformers_version);
  if (r.mode != "full" && r.mode != "lora")
    throw Error(ErrorKind::InvalidInput, where, fmt::format("mode '{}' is neither 'full' nor 'lora'", r.mode));
  if (r.mode == "lora") {
    const auto& l = need("lora");
    if (!l.is_object() || !l.contains("rank") || !l.contains("dropout"))
      throw Error(ErrorKind::InvalidInput, where, "a lora row needs 'lora': {rank, dropout}");
    r.lora_rank = l["rank"].get<std::int64_t>();
    r.lora_dropout = l["dropout"].get<double>();
  }
  if (r.batch <= 0) throw Error(ErrorKind::InvalidInput, where, "'batch' must be positive");
  if (r.seq.has_value() == r.image_size.has_value())
    throw Error(ErrorKind::InvalidInput, where, "exactly one of 'seq' and 'image_size' must be set");
  for (auto v : {r.baseline, r.forward, r.backward, r.overall})
    if (v <= 0) throw Error(ErrorKind::InvalidInput, where, "peak bytes must be positive");
  if (r.optimizer != "none" && r.optimizer_step <= 0)
    throw Error(ErrorKind::InvalidInput, where, "peak bytes must be positive");
  return r;
}

CpuRowSet load_cpu_rows(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(ErrorKind::NotFound, dir.string(), "not a folder of CPU rows");
  CpuRowSet set;
  for (const auto& path : jsonl_files(dir)) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(ErrorKind::Io, path.string(), "cannot open");
    std::string text;
    int line = 0;
    while (std::getline(in, text)) {
      ++line;
      if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
      try {
        set.rows.push_back(parse_cpu_row(text, path.string(), line));
      } catch (const Error& e) {
        set.errors.push_back(e.what());
      }
    }
  }
  return set;
}

}  // namespace neurarch::calibration
