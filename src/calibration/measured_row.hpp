#pragma once
// One measured training run as calibration/measure.py writes it (schema
// "neurarch.calibration.measured/v1"; the columns are documented in README.md, section
// "Calibration"). Only the columns the comparison needs are typed here; the others (versions,
// timings, hashes) are carried for the reader of the CSV and checked for presence only.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calibration/csv.hpp"

namespace neurarch::calibration {

inline constexpr const char* kMeasuredSchema = "neurarch.calibration.measured/v1";

enum class RunStatus { Ok, OutOfMemory, Error };

struct MeasuredRow {
  std::string file;
  int line = 0;
  int config_column = 0;  ///< where the config path sits, for errors about the config itself

  std::string case_id;
  std::string model_type;  ///< the family; statistics are grouped by it
  std::string config;      ///< path relative to the config root (calibration/ by default)
  std::string class_name;
  std::string mode;  ///< "full" | "lora"
  std::int64_t batch = 1;
  std::optional<std::int64_t> seq_len;     ///< text models
  std::optional<std::int64_t> image_size;  ///< vision models
  std::string attention;                   ///< "sdpa" | "eager": what the run really used
  std::string optimizer;                   ///< "adamw" | "adamw-fused" | ...
  std::int64_t lora_rank = 16;
  double lora_dropout = 0.05;

  std::string card;                       ///< emulated card name; empty: the whole device
  std::optional<std::int64_t> card_bytes;  ///< emulated card memory; empty: the whole device
  std::int64_t total_memory_bytes = 0;    ///< the real device's memory as torch reports it

  RunStatus status = RunStatus::Ok;
  std::optional<std::int64_t> max_allocated_bytes;
  std::optional<std::int64_t> max_reserved_bytes;
  std::optional<std::int64_t> context_bytes;  ///< device used (NVML) - torch reserved - idle baseline
  std::string peak_phase;                     ///< "forward_end" | "backward" | "optimizer_step" | ""
  std::optional<std::int64_t> trainable_parameters;
  std::string gpu_name, driver_version, torch_version, transformers_version, peft_version;

  /// max_memory_reserved + CUDA context: what decides an out-of-memory. nullopt unless status Ok.
  std::optional<std::int64_t> measured_device_bytes() const;
  /// "file:line"
  std::string where() const;
};

/// Columns every measured CSV must have (order free; extra columns are allowed).
const std::vector<std::string>& required_columns();

/// Typed rows of one parsed file. A missing column throws neurarch::Error(InvalidInput,
/// "file:1:1", why). A bad row (wrong schema, a non-number where a number belongs, an unknown mode
/// or status, an 'ok' row without its memory figures) is left out and its one-line error,
/// "file:line:column: why", appended to `errors`, so every bad row of every file is reported at once.
std::vector<MeasuredRow> read_rows(const CsvTable& table, std::vector<std::string>& errors);

}  // namespace neurarch::calibration
