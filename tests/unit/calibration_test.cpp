// `neurarch-trace validate`: CSV reading and its errors, the statistics, the confusion matrix, the
// leave-one-family-out fit, the whole command on rows made from the planner's own figures, the case
// lists measure.py runs, and the committed measurements in calibration/measured/.
// Files under tests/data/calibration/ are synthetic fixtures (their names and first lines say so).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/shared_data.hpp"
#include "calibration/csv.hpp"
#include "calibration/fit.hpp"
#include "calibration/measured_row.hpp"
#include "calibration/statistics.hpp"
#include "calibration/validate.hpp"
#include "cli/cli.hpp"
#include "support/validate_run.hpp"
#include "cli/validate_command.hpp"
#include "core/error.hpp"
#include "plan/plan.hpp"
#include "pipeline/trace.hpp"
#include "resolve/resolver.hpp"

namespace fs = std::filesystem;
using namespace neurarch::calibration;
using nlohmann::json;

namespace {

const fs::path kSource = NEURARCH_SOURCE_DIR;
const fs::path kFixtures = kSource / "tests" / "data" / "calibration";
const fs::path kCalibration = kSource / "calibration";

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

using Run = neurarch::testing::ValidateRun;
Run validate(std::vector<std::string> args) { return neurarch::testing::run_validate(std::move(args)); }

fs::path fresh_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("neurarch_calibration_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

}  // namespace

// ---- CSV ----------------------------------------------------------------------------------------

TEST(CalibrationCsv, QuotesCommentsAndPositions) {
  auto t = parse_csv("# comment\r\na,b,c\r\n1,\"x, \"\"y\"\"\",3\n\n\"multi\nline\",,z", "f.csv");
  ASSERT_EQ(t.header, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_EQ(t.records.size(), 2u);
  EXPECT_EQ(t.records[0].fields[1].text, "x, \"y\"");
  EXPECT_EQ(t.records[0].line, 3);
  EXPECT_EQ(t.records[0].fields[2].column, 14);
  EXPECT_EQ(t.records[1].fields[0].text, "multi\nline");
  EXPECT_EQ(t.records[1].line, 5);
  EXPECT_EQ(t.records[1].fields[1].text, "");
  EXPECT_EQ(t.records[1].fields[2].line, 6);
  EXPECT_EQ(t.column("c"), 2);
  EXPECT_EQ(t.column("d"), -1);
}

TEST(CalibrationCsv, ErrorsNameFileLineAndColumn) {
  auto error_of = [](const std::string& text) {
    try {
      parse_csv(text, "m.csv");
    } catch (const neurarch::Error& e) {
      EXPECT_EQ(e.kind(), neurarch::ErrorKind::InvalidInput);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error_of("a,b\n1,\"open\n"), "m.csv:2:3: quoted field is never closed");
  EXPECT_EQ(error_of("a,b\n1,\"x\"y\n"), "m.csv:2:6: unexpected text after a closing quote (a quote inside a field is written \"\")");
  EXPECT_EQ(error_of("a,b\n1,2,3\n"), "m.csv:2:1: expected 2 fields as in the header, found 3");
  EXPECT_EQ(error_of("a,a\n"), "m.csv:1:3: column 'a' appears twice");
  EXPECT_EQ(error_of("a,\n"), "m.csv:1:3: empty column name in the header");
  EXPECT_EQ(error_of("a,b\n1,x\"y\n"), "m.csv:2:4: a quote inside an unquoted field (quote the whole field and write \"\")");
  EXPECT_EQ(error_of("# only a comment\n"), "m.csv:1:1: no header line");
  EXPECT_NE(error_of("a\n" + std::string(kMaxCsvFieldBytes + 1, 'x') + "\n").find("m.csv:2:1: field longer than"),
            std::string::npos);
}

// ---- rows ---------------------------------------------------------------------------------------

TEST(CalibrationRows, SyntheticFixtureReadsTyped) {
  const auto file = kFixtures / "synthetic-fixture-valid.csv";
  std::vector<std::string> errors;
  auto rows = read_rows(parse_csv(slurp(file), file.string()), errors);
  ASSERT_TRUE(errors.empty()) << errors.front();
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].model_type, "gpt2");
  EXPECT_EQ(rows[0].line, 4);
  EXPECT_EQ(rows[0].status, RunStatus::Ok);
  EXPECT_EQ(*rows[0].seq_len, 32);
  EXPECT_FALSE(rows[0].image_size);
  EXPECT_EQ(*rows[0].measured_device_bytes(), 1200000 + 536870912);
  EXPECT_EQ(rows[1].mode, "lora");
  EXPECT_EQ(rows[1].lora_rank, 8);
  EXPECT_DOUBLE_EQ(rows[1].lora_dropout, 0.1);
  EXPECT_EQ(*rows[1].image_size, 56);
  EXPECT_EQ(rows[1].peak_phase, "forward_end");
  EXPECT_EQ(rows[2].status, RunStatus::OutOfMemory);
  EXPECT_EQ(rows[2].case_id, "tiny-bert-full@T4/b64");
  EXPECT_EQ(rows[2].card, "T4");
  EXPECT_EQ(*rows[2].card_bytes, 15835660288);
  EXPECT_FALSE(rows[2].measured_device_bytes());
  EXPECT_EQ(rows[3].status, RunStatus::Error);
}

TEST(CalibrationRows, EveryBadRowIsReportedByLineAndColumn) {
  const auto file = kFixtures / "synthetic-fixture-bad-rows.csv";
  const std::string text = slurp(file);
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  // The 1-based column where `needle` starts on 1-based line `line`, +offset.
  auto column = [&](int line, const std::string& needle, int offset) {
    return static_cast<int>(lines[static_cast<std::size_t>(line - 1)].find(needle)) + 1 + offset;
  };
  std::vector<std::string> errors;
  auto rows = read_rows(parse_csv(text.substr(0, text.find("neurarch.calibration.measured/v1,fixture,short-row")) +
                                      text.substr(text.find("neurarch.calibration.measured/v1,fixture,dry-run")),
                                  file.string()),
                        errors);
  EXPECT_TRUE(rows.empty());
  ASSERT_EQ(errors.size(), 5u);
  const std::string f = file.string();
  EXPECT_EQ(errors[0], fmt::format("{}:3:{}: column 'batch': expected a whole number, got 'abc'", f, column(3, ",abc,", 1)));
  EXPECT_EQ(errors[1], fmt::format("{}:4:{}: column 'mode': 'half' is not one of full, lora", f, column(4, ",half,", 1)));
  EXPECT_EQ(errors[2], fmt::format("{}:5:{}: an 'ok' row needs column 'max_reserved_bytes'", f, column(5, "1000000,,", 8)));
  EXPECT_EQ(errors[3], fmt::format("{}:6:{}: max_reserved_bytes is below max_allocated_bytes, which torch never reports",
                                   f, column(6, ",999,", 1)));
  EXPECT_NE(errors[4].find(":7:"), std::string::npos) << errors[4];
  EXPECT_NE(errors[4].find("a dry run (measure.py --dry-run on a CPU) is not a measurement"), std::string::npos);

  // The whole file: the short row is a CSV error that stops that file.
  auto r = validate({(kFixtures).string(), "--config-root", kCalibration.string()});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("synthetic-fixture-bad-rows.csv:7:1: expected 45 fields as in the header, found 4"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("synthetic-fixture-unterminated.csv:3:42: quoted field is never closed"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos);
}

TEST(CalibrationRows, MissingColumnIsNamed) {
  std::vector<std::string> errors;
  try {
    read_rows(parse_csv("schema,case_id\n", "h.csv"), errors);
    FAIL() << "a header without the required columns was accepted";
  } catch (const neurarch::Error& e) {
    EXPECT_EQ(std::string(e.what()), "h.csv:1:1: header lacks column 'model_type'");
  }
}

// ---- statistics -----------------------------------------------------------------------------------

TEST(CalibrationStatistics, PercentilesInterpolateLikeNumpy) {
  EXPECT_FALSE(percentile({}, 50));
  EXPECT_DOUBLE_EQ(*percentile({5}, 90), 5);
  EXPECT_DOUBLE_EQ(*percentile({3, 1, 2}, 50), 2);
  EXPECT_DOUBLE_EQ(*percentile({1, 2, 3, 4}, 50), 2.5);
  // numpy.percentile([1..10], 90) == 9.1
  EXPECT_NEAR(*percentile({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 90), 9.1, 1e-12);
  EXPECT_DOUBLE_EQ(*percentile({1, 2}, 100), 2);
  EXPECT_DOUBLE_EQ(*percentile({1, 2}, 0), 1);
}

TEST(CalibrationStatistics, SummaryOfSignedErrors) {
  EXPECT_DOUBLE_EQ(percent_error(110, 100), 10);
  EXPECT_DOUBLE_EQ(percent_error(95, 100), -5);
  EXPECT_FALSE(summarize({}));
  auto s = *summarize({-4, 1, 2, -3, 10});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median_abs_percent, 3);       // |.| = 1 2 3 4 10
  EXPECT_DOUBLE_EQ(s.p90_abs_percent, 4 + 0.6 * 6);  // rank 3.6
  EXPECT_DOUBLE_EQ(s.median_signed_percent, 1);
  EXPECT_DOUBLE_EQ(s.max_abs_percent, 10);
}

TEST(CalibrationConfusion, CountsEachCell) {
  Confusion c;
  c.add(true, true);
  c.add(true, true);
  c.add(true, false);
  c.add(false, false);
  c.add(false, true);
  EXPECT_EQ(c.fit_called_fits, 2);
  EXPECT_EQ(c.fit_called_oom, 1);
  EXPECT_EQ(c.oom_called_oom, 1);
  EXPECT_EQ(c.oom_called_fits, 1);
  EXPECT_EQ(c.total(), 5);
  EXPECT_EQ(c.measured_fit(), 3);
  EXPECT_EQ(c.measured_oom(), 2);
  EXPECT_NEAR(c.refused_fitting_percent(), 100.0 / 3, 1e-12);
  EXPECT_EQ(Confusion{}.refused_fitting_percent(), 0);
}

// ---- the fit --------------------------------------------------------------------------------------

namespace {
// A point whose best fragmentation fraction is exactly f (context 0, allocated 1000).
FitPoint point(const std::string& family, double f) { return {family, 1000, 1000 * (1 + f), 0}; }
}  // namespace

TEST(CalibrationFit, WeightedMedianMinimisesAbsolutePercentError) {
  EXPECT_FALSE(fit_fragmentation({}));
  EXPECT_NEAR(*fit_fragmentation({point("a", 0.05)}), 0.05, 1e-12);
  EXPECT_NEAR(*fit_fragmentation({point("a", 0.02), point("a", 0.04), point("a", 0.30)}), 0.04, 1e-12);
  // The fit really minimises the summed |error| / measured: no nearby fraction does better.
  std::vector<FitPoint> pts = {point("a", 0.01), point("a", 0.03), point("b", 0.08), point("c", 0.02)};
  pts[2].context = 200;  // a point with context keeps its own f_i = (measured - context) / allocated - 1
  auto cost = [&](double f) {
    double total = 0;
    for (const auto& p : pts) total += std::fabs(p.predicted_allocated * (1 + f) + p.context - p.measured_device) / p.measured_device;
    return total;
  };
  const double best = *fit_fragmentation(pts);
  for (double f = 0; f <= 0.2; f += 0.0005) EXPECT_LE(cost(best), cost(f) + 1e-12) << f;
}

TEST(CalibrationFit, ClampedToWhatAnAllocatorCanDo) {
  EXPECT_EQ(*fit_fragmentation({point("a", -0.2), point("b", -0.1)}), 0.0);
  EXPECT_EQ(*fit_fragmentation({point("a", 3.0)}), 1.0);
}

TEST(CalibrationFit, LeaveOneFamilyOutNeverSeesTheFamily) {
  std::vector<FitPoint> pts = {point("bert", 0.02), point("bert", 0.02), point("gpt2", 0.04),
                               point("gpt2", 0.04), point("vit", 0.30),  point("vit", 0.30),
                               point("vit", 0.30)};
  auto fits = leave_one_family_out(pts);
  ASSERT_EQ(fits.size(), 3u);
  EXPECT_EQ(fits[0].family, "bert");
  EXPECT_NEAR(fits[0].fraction, 0.30, 1e-12);  // gpt2 x2, vit x3: vit carries the weighted median
  EXPECT_EQ(fits[0].trained_on, 5u);
  EXPECT_EQ(fits[1].family, "gpt2");
  EXPECT_NEAR(fits[1].fraction, 0.30, 1e-12);
  EXPECT_EQ(fits[2].family, "vit");
  EXPECT_NEAR(fits[2].fraction, 0.02, 1e-12);  // bert and gpt2 only: the lower weighted median
  EXPECT_EQ(fits[2].trained_on, 4u);
  // Everything together would say 0.04: held out, vit is told 0.02 and is judged on that.
  EXPECT_NEAR(*fit_fragmentation(pts), 0.04, 1e-12);
  // A family alone has nothing to be fitted on; a family with no points still gets its fit.
  EXPECT_TRUE(leave_one_family_out({point("only", 0.1)}).empty());
  auto with_sweeps_only = leave_one_family_out({point("a", 0.1)}, {"a", "sweeps-only"});
  ASSERT_EQ(with_sweeps_only.size(), 1u);
  EXPECT_EQ(with_sweeps_only[0].family, "sweeps-only");
}

// ---- the command on rows built from the planner's own figures -----------------------------------

namespace {

struct Predicted {
  std::int64_t allocated, device, max_batch_on_card;
};

// The planner's figures for one configuration, through the public API the command also uses.
Predicted predict(const std::string& config, const std::string& cls, const std::string& mode, std::int64_t batch,
                  std::optional<std::int64_t> seq, std::optional<std::int64_t> image, std::int64_t card_bytes) {
  neurarch::resolve::ResolveOptions ro;
  ro.offline = true;
  neurarch::pipeline::TraceOptions to;
  to.build.class_name = cls;
  to.build.seq = seq;
  to.build.image_size = image;
  to.read_checkpoint = false;
  to.lint = false;
  auto r = neurarch::pipeline::trace(neurarch::resolve::resolve((kCalibration / config).string(), ro), to);
  neurarch::plan::PlanOptions o;
  o.full.batch = o.lora.batch = batch;
  o.full.mode = neurarch::plan::Mode::Full;
  o.lora.mode = neurarch::plan::Mode::LoRA;
  o.full.hold_outputs = o.lora.hold_outputs = false;  // calibration/measure.py drops the outputs, as validate plans it
  o.cards = {neurarch::plan::Card{"c", card_bytes, 1, true, 1, std::nullopt, "test"}};
  auto p = neurarch::plan::make_plan(r.graph, o);
  const auto& m = mode == "full" ? p.full : p.lora;
  return {m.peak_allocated, m.device_bytes, mode == "full" ? p.cards[0].full_max_batch : p.cards[0].lora_max_batch};
}

const std::int64_t kContext = neurarch::plan::default_runtime().cuda_context_bytes;
const std::int64_t kH200 = 150754820096;

struct Spec {
  std::string id, family, config, cls, mode;
  std::int64_t batch;
  std::optional<std::int64_t> seq, image;
};

// A row "measured" at `ratio` times the planner's device bytes (so its error is known exactly).
std::string peak_row(const Spec& s, double ratio, std::int64_t* predicted_device = nullptr) {
  auto p = predict(s.config, s.cls, s.mode, s.batch, s.seq, s.image, kH200);
  if (predicted_device) *predicted_device = p.device;
  const auto measured = static_cast<std::int64_t>(std::llround(static_cast<double>(p.device) * ratio));
  const std::int64_t reserved = measured - kContext;
  const std::int64_t allocated = std::min(reserved, p.allocated);
  return fmt::format(
      "neurarch.calibration.measured/v1,{},{},{},{},{},{},{},{},sdpa,adamw,16,0.05,,,{},ok,3,{},{},{},{},,x,x,x,x,x,0",
      s.id, s.family, s.config, s.cls, s.mode, s.batch, s.seq ? std::to_string(*s.seq) : "",
      s.image ? std::to_string(*s.image) : "", kH200, allocated, reserved, kContext, "backward");
}

// A run on an emulated card; an 'ok' one carries placeholder figures (sweeps are judged on fit alone).
std::string sweep_row(const Spec& s, const std::string& status, std::int64_t card_bytes) {
  return fmt::format(
      "neurarch.calibration.measured/v1,{},{},{},{},{},{},{},{},sdpa,adamw,16,0.05,card,{},{},{},3,{},,x,x,x,x,x,0",
      s.id, s.family, s.config, s.cls, s.mode, s.batch, s.seq ? std::to_string(*s.seq) : "",
      s.image ? std::to_string(*s.image) : "", card_bytes, kH200, status, status == "ok" ? "1,1,1," : ",,,");
}

const char* kHeader =
    "schema,case_id,model_type,config,class,mode,batch,seq_len,image_size,attention,optimizer,lora_rank,lora_dropout,"
    "card,card_bytes,total_memory_bytes,status,steps,max_allocated_bytes,max_reserved_bytes,context_bytes,peak_phase,"
    "trainable_parameters,gpu_name,driver_version,torch_version,transformers_version,peft_version,dry_run\n";

const Spec kGpt2{"g", "gpt2", "configs/tiny-gpt2.json", "GPT2LMHeadModel", "full", 2, 32, std::nullopt};
const Spec kBert{"b", "bert", "configs/tiny-bert.json", "BertForMaskedLM", "lora", 2, 32, std::nullopt};
const Spec kDino{"d", "dinov2", "configs/tiny-dinov2.json", "Dinov2Model", "full", 2, std::nullopt, 56};

}  // namespace

TEST(CalibrationValidate, ErrorsFiguresAndTargetsFromPlannerRows) {
  const auto dir = fresh_dir("figures") / "measured";
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "rows.csv");
    f << "# SYNTHETIC TEST ROWS written by calibration_test.cpp from the planner's own figures\n" << kHeader;
    f << peak_row(kGpt2, 1.01) << "\n" << peak_row(kBert, 0.98) << "\n" << peak_row(kDino, 1.03) << "\n";
  }
  auto r = validate({dir.string(), "--format", "json", "--config-root", kCalibration.string()});
  ASSERT_EQ(r.err, "");
  auto j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "neurarch.calibration.report/v1");
  EXPECT_EQ(j["rows"]["ok"], 3);
  // |errors| = 100 * |1/ratio - 1|: 0.990, 2.041, 2.913 percent
  const double e1 = 100 * (1 / 1.01 - 1), e2 = 100 * (1 / 0.98 - 1), e3 = 100 * (1 / 1.03 - 1);
  EXPECT_NEAR(j["overall"]["device"]["median_abs_percent"].get<double>(), e2, 1e-6);
  EXPECT_NEAR(j["overall"]["device"]["p90_abs_percent"].get<double>(), e2 + 0.8 * (std::fabs(e3) - e2), 1e-6);
  EXPECT_NEAR(j["overall"]["device"]["median_signed_percent"].get<double>(), e1, 1e-6);
  ASSERT_EQ(j["families"].size(), 3u);
  EXPECT_EQ(j["families"][0]["family"], "bert");
  EXPECT_NEAR(j["families"][0]["device"]["median_signed_percent"].get<double>(), e2, 1e-6);
  EXPECT_EQ(j["worst"][0]["family"], "dinov2");
  EXPECT_EQ(j["worst"].size(), 3u);
  // Three families: each gets a fragmentation fitted on the other two, and a held-out error.
  EXPECT_EQ(j["fragmentation"]["leave_one_family_out"].size(), 3u);
  EXPECT_FALSE(j["overall"]["held_out"].is_null());
  // median 2.04 % > 2 %: the shipped-figure target is missed and the exit code says so.
  EXPECT_EQ(r.code, 1);
  EXPECT_FALSE(j["targets_met"].get<bool>());
  bool median_missed = false;
  for (const auto& t : j["targets"])
    if (t["name"] == "median |error| of the peak (%)" && t["figure"] == "shipped") median_missed = !t["met"].get<bool>();
  EXPECT_TRUE(median_missed);

  auto text = validate({dir.string(), "--config-root", kCalibration.string()});
  EXPECT_EQ(text.code, 1);
  EXPECT_NE(text.out.find("overall"), std::string::npos);
  EXPECT_NE(text.out.find("Worst 3 rows:"), std::string::npos);
  EXPECT_NE(text.out.find("leave-one-family-out (fitted without the family): bert"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("MISSED"), std::string::npos);
}

TEST(CalibrationValidate, WithinTargetsExitsZero) {
  const auto dir = fresh_dir("within") / "measured";
  fs::create_directories(dir);
  {
    std::ofstream f(dir / "rows.csv");
    f << kHeader << peak_row(kGpt2, 1.005) << "\n" << peak_row(kBert, 0.99) << "\n" << peak_row(kDino, 1.01) << "\n";
  }
  auto r = validate({dir.string(), "--config-root", kCalibration.string()});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all targets met"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no rows on emulated cards"), std::string::npos);
}

TEST(CalibrationValidate, AMeasuredOomCalledFitsFailsTheRun) {
  const auto dir = fresh_dir("confusion") / "measured";
  fs::create_directories(dir);
  auto p = predict(kGpt2.config, kGpt2.cls, kGpt2.mode, kGpt2.batch, kGpt2.seq, kGpt2.image, kH200);
  const std::int64_t roomy = p.device * 2, tight = p.device / 2;
  {
    std::ofstream f(dir / "sweep.csv");
    f << kHeader << peak_row(kGpt2, 1.0) << "\n" << peak_row(kBert, 1.0) << "\n";
    f << sweep_row(kGpt2, "ok", roomy) << "\n";    // fits, called fits
    f << sweep_row(kGpt2, "oom", tight) << "\n";   // OOM, called OOM
    f << sweep_row(kGpt2, "ok", tight) << "\n";    // fits, called OOM (a refused fitting job)
    f << sweep_row(kGpt2, "oom", roomy) << "\n";   // OOM, called fits: the count that must be 0
  }
  auto r = validate({dir.string(), "--format", "json", "--config-root", kCalibration.string()});
  ASSERT_EQ(r.err, "");
  auto j = json::parse(r.out);
  EXPECT_EQ(j["confusion"]["measured_fits_predicted_fits"], 1);
  EXPECT_EQ(j["confusion"]["measured_oom_predicted_oom"], 1);
  EXPECT_EQ(j["confusion"]["measured_fits_predicted_oom"], 1);
  EXPECT_EQ(j["confusion"]["measured_oom_predicted_fits"], 1);
  EXPECT_NEAR(j["confusion"]["refused_fitting_percent"].get<double>(), 50, 1e-9);
  EXPECT_EQ(j["rows"]["oom"], 2);
  EXPECT_EQ(r.code, 1);
  // Sweep rows never enter the peak statistics: the two whole-device rows are exact.
  EXPECT_EQ(j["overall"]["device"]["rows"], 2);
  EXPECT_NEAR(j["overall"]["device"]["max_abs_percent"].get<double>(), 0, 1e-6);
  auto text = validate({dir.string(), "--config-root", kCalibration.string()});
  EXPECT_NE(text.out.find("measured OOMs called \"fits\": 1 (must be 0)"), std::string::npos) << text.out;
}

TEST(CalibrationValidate, RowsThatCannotBePlannedAreNamed) {
  const auto dir = fresh_dir("unplannable") / "measured";
  fs::create_directories(dir);
  Spec missing = kGpt2;
  missing.config = "configs/no-such.json";
  Spec wrong_family = kGpt2;
  wrong_family.family = "llama";
  Spec too_long = kGpt2;
  too_long.seq = 4096;  // tiny-gpt2 has 128 learned positions
  {
    std::ofstream f(dir / "rows.csv");
    f << kHeader << sweep_row(missing, "oom", 1000) << "\n" << sweep_row(wrong_family, "oom", 1000) << "\n"
      << sweep_row(too_long, "oom", 1000) << "\n";
  }
  auto r = validate({dir.string(), "--config-root", kCalibration.string()});
  EXPECT_EQ(r.code, 3) << r.err;  // the first error is a missing config
  EXPECT_EQ(r.out, "");
  const std::string csv = (dir / "rows.csv").string();
  EXPECT_NE(r.err.find(csv + ":2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("config 'configs/no-such.json' not found"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(csv + ":3:" ), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("model_type 'llama' but the config builds 'gpt2'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(csv + ":4:"), std::string::npos) << r.err;
}

TEST(CalibrationValidate, EmptyFolderAndBadArguments) {
  const auto dir = fresh_dir("empty") / "measured";
  fs::create_directories(dir);
  auto r = validate({dir.string()});
  EXPECT_EQ(r.code, neurarch::cli::kValidateNoRowsExit);
  EXPECT_NE(r.out.find("holds no measured rows to compare (0 CSV files, 0 rows"), std::string::npos) << r.out;
  auto j = validate({dir.string(), "--format", "json"});
  EXPECT_EQ(j.code, neurarch::cli::kValidateNoRowsExit);
  EXPECT_TRUE(json::parse(j.out)["no_measured_rows"].get<bool>());
  EXPECT_EQ(validate({(dir / "nope").string()}).code, 3);
  EXPECT_NE(validate({}).code, 0);
}

// ---- the case lists measure.py runs ---------------------------------------------------------------

TEST(CalibrationCases, EveryCasePlansAndTheRunsSpanTheFamilies) {
  const auto& catalogue = neurarch::plan::default_cards();
  const auto h200 = neurarch::plan::find_card(catalogue, "H200");
  std::set<std::string> families, modes;
  std::int64_t smallest = INT64_MAX, largest = 0;
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(kCalibration)) {
    const auto name = entry.path().filename().string();
    if (!name.starts_with("cases_run") || entry.path().extension() != ".json") continue;
    auto doc = json::parse(slurp(entry.path()));
    ASSERT_EQ(doc["schema"], "neurarch.calibration.cases/v1") << name;
    for (const auto& c : doc["cases"]) {
      SCOPED_TRACE(name + ": " + c.dump());
      auto list = [](const json& v) { return v.is_array() ? v : json::array({v}); };
      const bool text = c.contains("seq_len");
      const std::string mode = c["mode"];
      modes.insert(mode);
      for (const auto& size : list(text ? c["seq_len"] : c["image_size"]))
        for (const auto& batch : list(c.value("batch", json(1)))) {
          ++cases;
          neurarch::resolve::ResolveOptions ro;
          ro.offline = true;
          neurarch::pipeline::TraceOptions to;
          to.build.class_name = c["class"];
          if (text) to.build.seq = size.get<std::int64_t>();
          else to.build.image_size = size.get<std::int64_t>();
          to.read_checkpoint = false;
          to.lint = false;
          auto r = neurarch::pipeline::trace(
              neurarch::resolve::resolve((kCalibration / c["config"].get<std::string>()).string(), ro), to);
          ASSERT_TRUE(r.graph.forward.ok) << r.graph.forward.reason;
          families.insert(r.model.model_type);
          const auto params = r.graph.parameter_count();
          smallest = std::min(smallest, params);
          largest = std::max(largest, params);
          if (params > 2'000'000'000) {
            EXPECT_EQ(mode, "lora") << "several-billion models are measured in LoRA only";
          }
          neurarch::plan::PlanOptions o;
          o.full.batch = o.lora.batch = batch.get<std::int64_t>();
          o.lora.mode = neurarch::plan::Mode::LoRA;
          o.cards = {h200};
          auto p = neurarch::plan::make_plan(r.graph, o);
          if (c.contains("sweep")) {
            for (const auto& card : c["sweep"]["cards"]) EXPECT_NO_THROW(neurarch::plan::find_card(catalogue, card.get<std::string>()));
          } else {
            // A whole-device case must be expected to fit, or it would measure an OOM, not a peak.
            EXPECT_GE(mode == "full" ? p.cards[0].full_max_batch : p.cards[0].lora_max_batch, batch.get<std::int64_t>());
          }
        }
    }
  }
  EXPECT_GE(cases, 60);
  EXPECT_GE(families.size(), 20u);
  EXPECT_EQ(modes, (std::set<std::string>{"full", "lora"}));
  EXPECT_LE(smallest, 25'000'000);
  EXPECT_GE(largest, 7'000'000'000);
}

// ---- the committed measurements -----------------------------------------------------------------

TEST(CalibrationMeasured, CommittedMeasurementsMeetTheTargets) {
  const auto dir = kCalibration / "measured";
  ASSERT_TRUE(fs::is_directory(dir));
  std::size_t rows = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    if (entry.path().extension() == ".csv") {
      std::ifstream f(entry.path());
      for (std::string line; std::getline(f, line);)
        if (line.starts_with("neurarch.calibration.measured/v1,")) ++rows;
    }
  auto r = validate({dir.string()});
  if (rows == 0) {
    // Nothing measured yet (no GPU lent so far): validate says so and exits 6, never 0.
    EXPECT_EQ(r.code, neurarch::cli::kValidateNoRowsExit) << r.out << r.err;
    EXPECT_NE(r.out.find("nothing was measured yet"), std::string::npos) << r.out;
    return;  // the GPU measurement is still owed; with rows, the targets below are enforced
  }
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.code, 0) << r.out;
}

// ---- measure.py's own tests ----------------------------------------------------------------------

TEST(CalibrationHarness, MeasurePyUnitTestsPass) {
  const char* python = "/usr/bin/python3";
  NEURARCH_REQUIRE(fs::exists(python), std::string(python) + " is absent (Debian's python3 runs measure.py's tests)");
  const auto log = fs::temp_directory_path() / ("neurarch_measure_py_" + std::to_string(::getpid()) + ".log");
  const std::string cmd = fmt::format("cd '{}' && PYTHONDONTWRITEBYTECODE=1 {} -m unittest discover -s calibration -p 'test_*.py' > '{}' 2>&1",
                                      kSource.string(), python, log.string());
  const int status = std::system(cmd.c_str());
  EXPECT_EQ(status, 0) << slurp(log);
  fs::remove(log);
}
