#pragma once
// One CPU-measured training step as tools/measure_cpu/measure_cpu.py writes it: a JSON line of
// schema "neurarch.calibration.cpu/v1" (docs/cpu-memory.md lists the fields). The peaks are exact
// live tensor bytes (the profiler's allocation events), per phase of the step.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace neurarch::calibration {

inline constexpr const char* kCpuSchema = "neurarch.calibration.cpu/v1";

struct CpuRow {
  std::string file;
  int line = 0;
  std::string model, model_type, class_name;
  std::string config;     ///< relative to the folder that holds the rows
  std::string mode;       ///< "full" | "lora"
  std::string precision;  ///< "fp32" | "amp-bf16" | "bf16"
  std::string optimizer;  ///< "adamw" | "none" (forward + backward only)
  bool foreach = true;    ///< AdamW's multi-tensor step (false: the per-parameter loop)
  std::string loss = "model";  ///< "model": the model's own loss from labels | "logits-sum": logits.sum()
  bool hold_outputs = false;   ///< the loop kept the outputs (logits) through backward
  std::int64_t lora_rank = 16;
  double lora_dropout = 0;
  std::string attention;  ///< "sdpa" | "eager": what the run used
  std::int64_t batch = 1;
  std::optional<std::int64_t> seq, image_size;
  std::int64_t trainable_parameters = 0;
  std::int64_t baseline = 0, forward = 0, backward = 0, optimizer_step = 0, overall = 0;
  std::string torch_version, transformers_version;

  std::string where() const;  ///< "file:line"
};

struct CpuRowSet {
  std::vector<CpuRow> rows;
  std::vector<std::string> errors;  ///< "file:line: why", every bad line of every file
};

/// Every *.jsonl directly in `dir`, sorted by name; blank lines are skipped.
CpuRowSet load_cpu_rows(const std::filesystem::path& dir);
/// Whether `dir` holds any *.jsonl file (validate then reads it as CPU rows).
bool has_cpu_rows(const std::filesystem::path& dir);
/// One line; throws neurarch::Error(InvalidInput, "file:line", why) on a bad one.
CpuRow parse_cpu_row(const std::string& text, const std::string& file, int line);

}  // namespace neurarch::calibration
