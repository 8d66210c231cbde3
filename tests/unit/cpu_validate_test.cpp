// The planner against the committed CPU-measured steps (calibration/cpu/, tools/measure_cpu): a
// planner change that moves any phase's prediction away from the measured live bytes fails here.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "calibration/cpu_rows.hpp"
#include "calibration/cpu_validate.hpp"
#include "cli/cli.hpp"
#include "support/validate_run.hpp"
#include "core/error.hpp"

namespace fs = std::filesystem;
using namespace neurarch::calibration;

namespace {

const fs::path kSource = NEURARCH_SOURCE_DIR;
const fs::path kCpuRows = kSource / "calibration" / "cpu";

using Run = neurarch::testing::ValidateRun;
Run validate(std::vector<std::string> args) { return neurarch::testing::run_validate(std::move(args)); }

std::string last_line(const std::string& text) {
  auto end = text.find_last_not_of('\n');
  auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

const char* kRow =
    R"({"schema": "neurarch.calibration.cpu/v1", "model": "m", "model_type": "gpt2", "class": "GPT2LMHeadModel", )"
    R"("config": "configs/x.json", "mode": "full", "precision": "fp32", "optimizer": "adamw", "foreach": true, )"
    R"("lora": null, "attention": "sdpa", "batch": 1, "seq": 32, "image_size": null, "trainable_parameters": 10, )"
    R"("baseline_bytes": 1, "forward_peak_bytes": 2, "backward_peak_bytes": 3, "optimizer_peak_bytes": 4, )"
    R"("overall_peak_bytes": 4, "torch": "2.13.0+cpu", "transformers": "5.24.0"})";

}  // namespace

TEST(CpuRows, ReadsTypedAndNamesBadLines) {
  const auto r = parse_cpu_row(kRow, "rows.jsonl", 3);
  EXPECT_EQ(r.model_type, "gpt2");
  EXPECT_EQ(r.seq, 32);
  EXPECT_FALSE(r.image_size);
  EXPECT_EQ(r.optimizer_step, 4);
  std::string bad = kRow;
  bad.replace(bad.find("\"batch\": 1"), 10, "\"batch\": 0");
  try {
    parse_cpu_row(bad, "rows.jsonl", 7);
    FAIL() << "a zero batch was accepted";
  } catch (const neurarch::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("rows.jsonl:7: ", 0), 0u) << e.what();
  }
  std::string no_peak = kRow;
  no_peak.replace(no_peak.find("\"forward_peak_bytes\""), 20, "\"forward_peak\"");
  EXPECT_THROW(parse_cpu_row(no_peak, "rows.jsonl", 1), neurarch::Error);
}

TEST(CpuValidate, UnplannableOptimizerAndForLoopRowsAreCountedInexpressible) {
  const auto dir = fs::temp_directory_path() / ("neurarch_cpu_rows_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string sgd = kRow, loop = kRow;
  sgd.replace(sgd.find("\"optimizer\": \"adamw\""), 20, "\"optimizer\": \"sgd\"");
  loop.replace(loop.find("\"foreach\": true"), 15, "\"foreach\": false");
  std::ofstream(dir / "rows.jsonl") << sgd << "\n\n" << loop << "\n";
  auto r = validate({dir.string()});
  EXPECT_EQ(last_line(r.out), "cpu: rows 2, planned 0, inexpressible 2, median 0.0%, p90 0.0%, under10 0") << r.out
                                                                                                            << r.err;
  EXPECT_NE(r.out.find("optimizer 'sgd'"), std::string::npos);
  EXPECT_NE(r.out.find("for-loop"), std::string::npos);
  fs::remove_all(dir);
}

TEST(CpuValidate, RowsWithoutLossOrLoopFieldsRanTheModelLossAndDroppedTheOutputs) {
  const auto r = parse_cpu_row(kRow, "rows.jsonl", 1);
  EXPECT_EQ(r.loss, "model");
  EXPECT_FALSE(r.hold_outputs);
  std::string bad = kRow;
  bad.insert(bad.find("\"foreach\""), "\"loss\": \"mse\", ");
  EXPECT_THROW(parse_cpu_row(bad, "rows.jsonl", 1), neurarch::Error);
}

TEST(CpuValidate, CommittedRowsMeetTheTargets) {
  auto r = validate({kCpuRows.string()});
  ASSERT_TRUE(r.err.empty()) << r.err;
  const std::string line = last_line(r.out);
  std::smatch m;
  const std::regex re(R"(^cpu: rows (\d+), planned (\d+), inexpressible (\d+), median ([0-9.]+)%, p90 ([0-9.]+)%, under10 (\d+)$)");
  ASSERT_TRUE(std::regex_match(line, m, re)) << line;
  EXPECT_GE(std::stoi(m[2]), 40) << "too few planned rows to judge the planner";
  const CpuTargets t;
  EXPECT_LE(std::stod(m[4]), t.max_median_abs_percent) << r.out;
  EXPECT_LE(std::stod(m[5]), t.max_p90_abs_percent) << r.out;
  EXPECT_EQ(std::stoi(m[6]), 0) << r.out;
}
