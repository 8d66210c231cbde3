#include "calibration/measured_row.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace neurarch::calibration {
namespace {

class RowReader {
 public:
  RowReader(const CsvTable& t, const CsvRecord& r) : t_(t), r_(r) {}

  const CsvField& field(const char* name) const {
    return r_.fields[static_cast<std::size_t>(t_.column(name))];
  }

  [[noreturn]] void fail(const CsvField& f, const std::string& why) const {
    throw Error(ErrorKind::InvalidInput, fmt::format("{}:{}:{}", t_.origin, f.line, f.column), why);
  }

  std::string text(const char* name) const { return field(name).text; }

  std::string required_text(const char* name) const {
    const auto& f = field(name);
    if (f.text.empty()) fail(f, fmt::format("column '{}' is empty", name));
    return f.text;
  }

  std::optional<std::int64_t> optional_count(const char* name, std::int64_t minimum) const {
    const auto& f = field(name);
    if (f.text.empty()) return std::nullopt;
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(f.text.data(), f.text.data() + f.text.size(), v);
    if (ec != std::errc() || end != f.text.data() + f.text.size())
      fail(f, fmt::format("column '{}': expected a whole number, got '{}'", name, f.text));
    if (v < minimum) fail(f, fmt::format("column '{}': {} is below the minimum {}", name, v, minimum));
    return v;
  }

  std::int64_t count(const char* name, std::int64_t minimum) const {
    auto v = optional_count(name, minimum);
    if (!v) fail(field(name), fmt::format("column '{}' is empty", name));
    return *v;
  }

  double fraction(const char* name) const {
    const auto& f = field(name);
    double v = 0;
    auto [end, ec] = std::from_chars(f.text.data(), f.text.data() + f.text.size(), v);
    if (f.text.empty() || ec != std::errc() || end != f.text.data() + f.text.size() || !std::isfinite(v))
      fail(f, fmt::format("column '{}': expected a number, got '{}'", name, f.text));
    if (v < 0 || v >= 1) fail(f, fmt::format("column '{}': {} is outside [0, 1)", name, v));
    return v;
  }

  std::string one_of(const char* name, std::initializer_list<const char*> allowed) const {
    const auto& f = field(name);
    for (const char* a : allowed)
      if (f.text == a) return f.text;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    fail(f, fmt::format("column '{}': '{}' is not one of {}", name, f.text, list));
  }

 private:
  const CsvTable& t_;
  const CsvRecord& r_;
};

MeasuredRow read_row(const CsvTable& t, const CsvRecord& rec) {
  RowReader in(t, rec);
  MeasuredRow r;
  r.file = t.origin;
  r.line = rec.line;
  if (const auto& f = in.field("schema"); f.text != kMeasuredSchema)
    in.fail(f, fmt::format("schema '{}' is not {}", f.text, kMeasuredSchema));
  if (const auto& f = in.field("dry_run"); f.text != "0")
    in.fail(f, f.text == "1" ? "a dry run (measure.py --dry-run on a CPU) is not a measurement"
                             : fmt::format("column 'dry_run': expected 0, got '{}'", f.text));
  r.case_id = in.required_text("case_id");
  r.model_type = in.required_text("model_type");
  r.config = in.required_text("config");
  r.config_column = in.field("config").column;
  r.class_name = in.required_text("class");
  r.mode = in.one_of("mode", {"full", "lora"});
  r.batch = in.count("batch", 1);
  r.seq_len = in.optional_count("seq_len", 1);
  r.image_size = in.optional_count("image_size", 1);
  if (!r.seq_len && !r.image_size) in.fail(in.field("seq_len"), "neither seq_len nor image_size is set");
  r.attention = in.one_of("attention", {"sdpa", "eager"});
  r.optimizer = in.one_of("optimizer", {"adamw", "adamw-fused", "sgd-momentum", "adam-8bit"});
  r.lora_rank = in.count("lora_rank", 1);
  r.lora_dropout = in.fraction("lora_dropout");
  r.card = in.text("card");
  r.card_bytes = in.optional_count("card_bytes", 1);
  if (r.card.empty() != !r.card_bytes.has_value())
    in.fail(in.field("card_bytes"), "card and card_bytes must both be set (an emulated card) or both be empty");
  r.total_memory_bytes = in.count("total_memory_bytes", 1);
  const std::string status = in.one_of("status", {"ok", "oom", "error"});
  r.status = status == "ok" ? RunStatus::Ok : status == "oom" ? RunStatus::OutOfMemory : RunStatus::Error;
  r.max_allocated_bytes = in.optional_count("max_allocated_bytes", 0);
  r.max_reserved_bytes = in.optional_count("max_reserved_bytes", 0);
  r.context_bytes = in.optional_count("context_bytes", 0);
  r.trainable_parameters = in.optional_count("trainable_parameters", 0);
  r.peak_phase = in.text("peak_phase");
  if (!r.peak_phase.empty()) in.one_of("peak_phase", {"forward_end", "backward", "optimizer_step"});
  r.gpu_name = in.text("gpu_name");
  r.driver_version = in.text("driver_version");
  r.torch_version = in.text("torch_version");
  r.transformers_version = in.text("transformers_version");
  r.peft_version = in.text("peft_version");
  if (r.status == RunStatus::Ok) {
    for (const char* name : {"max_allocated_bytes", "max_reserved_bytes", "context_bytes"})
      if (in.field(name).text.empty()) in.fail(in.field(name), fmt::format("an 'ok' row needs column '{}'", name));
    if (*r.max_reserved_bytes == 0)
      in.fail(in.field("max_reserved_bytes"), "an 'ok' run that reserved no memory was not measured on a GPU");
    if (*r.max_reserved_bytes < *r.max_allocated_bytes)
      in.fail(in.field("max_reserved_bytes"), "max_reserved_bytes is below max_allocated_bytes, which torch never reports");
  }
  return r;
}

}  // namespace

std::optional<std::int64_t> MeasuredRow::measured_device_bytes() const {
  if (status != RunStatus::Ok || !max_reserved_bytes || !context_bytes) return std::nullopt;
  return *max_reserved_bytes + *context_bytes;
}

std::string MeasuredRow::where() const { return fmt::format("{}:{}", file, line); }

const std::vector<std::string>& required_columns() {
  static const std::vector<std::string> columns = {
      "schema",      "case_id",       "model_type",          "config",         "class",
      "mode",        "batch",         "seq_len",             "image_size",     "attention",
      "optimizer",   "lora_rank",     "lora_dropout",        "card",           "card_bytes",
      "total_memory_bytes", "status", "max_allocated_bytes", "max_reserved_bytes", "context_bytes",
      "peak_phase",  "trainable_parameters", "gpu_name",     "driver_version", "torch_version",
      "transformers_version", "peft_version", "dry_run"};
  return columns;
}

std::vector<MeasuredRow> read_rows(const CsvTable& table, std::vector<std::string>& errors) {
  for (const auto& name : required_columns())
    if (table.column(name) < 0)
      throw Error(ErrorKind::InvalidInput, table.origin + ":1:1", fmt::format("header lacks column '{}'", name));
  std::vector<MeasuredRow> rows;
  rows.reserve(table.records.size());
  for (const auto& rec : table.records) {
    try {
      rows.push_back(read_row(table, rec));
    } catch (const Error& e) {
      errors.push_back(e.what());
    }
  }
  return rows;
}

}  // namespace neurarch::calibration
