// `neurarch-trace lint MODEL...` as a function: per-model findings, the --fail-on gate, exit codes.
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/lint_command.hpp"

using neurarch::cli::run_lint_command;

namespace {

struct Result {
  int code;
  std::string out, err;
};

Result lint(const std::vector<std::string>& models, const std::string& fail_on = "error",
            const std::string& format = "text", const neurarch::lint::Options& o = {}) {
  std::ostringstream out, err;
  int code = run_lint_command(models, fail_on, format, out, err, o);
  return {code, out.str(), err.str()};
}

}  // namespace

TEST(LintCommand, WarningsPassTheDefaultGate) {
  auto r = lint({"gpt2"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("gpt2 (gpt2, GPT2LMHeadModel): 0 error, 1 warn, 0 info"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("warn [vocab-multiple-of-8] LM_Head:"), std::string::npos) << r.out;
}

TEST(LintCommand, FailOnWarnTripsTheGate) {
  EXPECT_EQ(lint({"gpt2"}, "warn").code, 1);
  EXPECT_EQ(lint({"facebook/dinov2-small"}, "info").code, 0);
}

TEST(LintCommand, ManyModelsAsJson) {
  auto r = lint({"facebook/dinov2-small", "gpt2"}, "error", "json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["model"], "facebook/dinov2-small");
  EXPECT_EQ(j[0]["model_type"], "dinov2");
  EXPECT_TRUE(j[0]["findings"].empty());
  EXPECT_EQ(j[1]["findings"][0]["rule"], "vocab-multiple-of-8");
  EXPECT_EQ(j[1]["findings"][0]["severity"], "warn");
  EXPECT_EQ(j[1]["findings"][0]["node"], "LM_Head");
}

TEST(LintCommand, RequestedSequenceReachesTheRules) {
  neurarch::lint::Options o;
  o.seq = 4096;
  auto r = lint({"gpt2"}, "error", "text", o);
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("error [graph-forward] Position_Embedding:"), std::string::npos) << r.out;
}

TEST(LintCommand, UntraceableModelFailsButOthersAreChecked) {
  auto r = lint({"no-such-org/no-such-model-xyz", "gpt2"});
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.err.find("no-such-org/no-such-model-xyz"), std::string::npos);
  EXPECT_NE(r.out.find("vocab-multiple-of-8"), std::string::npos);
}

TEST(LintCommand, BadArgumentsAreUsageErrors) {
  EXPECT_EQ(lint({"gpt2"}, "fatal").code, 2);
  EXPECT_EQ(lint({"gpt2"}, "error", "yaml").code, 2);
  EXPECT_EQ(lint({}).code, 2);
}
