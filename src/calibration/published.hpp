#pragma once
// The planner against peaks other people measured and published
// (measurements/published/rows.json; the schema is that folder's README). Each row's stated setup
// becomes the planner's options through plan/options.hpp's table; a row the vocabulary cannot state
// is listed with what is missing, never skipped.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "calibration/statistics.hpp"
#include "plan/options.hpp"

namespace neurarch::calibration {

struct PublishedRow {
  std::size_t index = 0;  ///< position in the file, for errors
  std::string id, source, model, task_head, mode, precision, optimizer, attention, framework, versions, gpu, metric;
  std::string notes, loss;  ///< loss: optional field; otherwise stated in notes or the framework's default
  std::int64_t batch = 1;
  std::optional<std::int64_t> seq, image_size, grad_accum;
  std::optional<bool> grad_checkpointing;  ///< null: not stated (the framework's default applies)
  std::optional<std::int64_t> lora_rank;
  std::optional<double> lora_dropout;
  std::vector<std::string> lora_targets;
  std::optional<std::int64_t> value_bytes;
  bool oom = false;
};

/// Reads the JSON list. Throws Error(InvalidInput, "file: row N (id)") for a row that breaks the schema.
std::vector<PublishedRow> read_published(const std::filesystem::path& file);

/// What a row states, as the planner's options; `missing` names what the vocabulary cannot express.
struct RowSetup {
  plan::SetupChoices choices;
  std::string class_name;  ///< "" : the config's own architecture
  std::string metric;      ///< "allocated" | "reserved" | "device"
  std::vector<std::string> missing;
};
RowSetup row_setup(const PublishedRow& row, const std::string& config_architecture);

/// The catalogue card the row's GPU text names ("NVIDIA A100-SXM4-80GB", "L40S 48GB"), else a card of the
/// stated "NN GB" read as GiB; nullopt when neither is there. Only its memory matters (out-of-memory rows).
std::optional<plan::Card> card_of(const std::string& gpu_text);

struct PublishedResult {
  const PublishedRow* row = nullptr;
  std::string source;  ///< the group it is summarised in
  std::string options;  ///< the planner's options as flags, for the reader
  std::vector<std::string> missing;  ///< inexpressible: what is missing
  std::optional<std::int64_t> planned;  ///< the figure of the row's metric
  std::string peak_phase;
  std::optional<double> error_percent;  ///< measured rows
  std::optional<bool> predicted_fits;   ///< OOM rows: whether the planner says it fits the card
};

struct PublishedSummary {
  std::string source;
  std::size_t rows = 0, planned = 0, inexpressible = 0, under10 = 0, oom_called_fit = 0;
  std::optional<ErrorSummary> errors;
};

struct PublishedTargets {
  std::size_t inexpressible = 0, under10 = 0, oom_called_fit = 0;
  double median = 5.0, p90 = 12.0;
};

struct PublishedEvaluation {
  std::vector<PublishedResult> results;
  std::vector<PublishedSummary> sources;
  PublishedSummary overall;
  bool targets_met(const PublishedTargets& t = {}) const;
  /// "published: rows N, planned P, inexpressible I, median X%, p90 Y%, under10 U, oom_called_fit F"
  std::string last_line() const;
};

/// Plans every row. Configs are found as `<id with / as -->.json` in the first of `config_dirs` that
/// holds one; a model found in none is inexpressible ("config not found").
PublishedEvaluation evaluate_published(const std::vector<PublishedRow>& rows,
                                       const std::vector<std::filesystem::path>& config_dirs,
                                       const plan::Runtime& runtime);

std::string render_published_text(const PublishedEvaluation& ev);

}  // namespace neurarch::calibration
