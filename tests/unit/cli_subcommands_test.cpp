// The command line's subcommands (src/cli/cli.cpp): listed by --help, each with its own help, the trace
// reachable by name as well as by default, and the main app's flags refused beside a subcommand.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli.hpp"

namespace {

struct Run {
  int code;
  std::string out, err;
};

Run run(std::vector<std::string> args) {
  args.insert(args.begin(), "neurarch-trace");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  std::istringstream in;
  const int code = neurarch::cli::run(static_cast<int>(argv.size()), argv.data(), out, err, in);
  return {code, out.str(), err.str()};
}

const std::vector<std::string> kSubcommands = {"trace", "lint", "serve", "track", "changes", "validate"};

}  // namespace

TEST(CliSubcommands, HelpListsEverySubcommand) {
  const auto r = run({"--help"});
  ASSERT_EQ(r.code, 0) << r.err;
  const auto section = r.out.find("\nSubcommands:\n");
  ASSERT_NE(section, std::string::npos) << r.out;
  for (const auto& name : kSubcommands)
    EXPECT_NE(r.out.find("\n  " + name + " ", section), std::string::npos) << name << " missing from\n" << r.out;
  // The trace's own flags stay on the main help: the trace is what runs without a subcommand.
  EXPECT_NE(r.out.find("--plan"), std::string::npos);
}

TEST(CliSubcommands, EachSubcommandHasItsOwnHelp) {
  for (const auto& name : kSubcommands) {
    const auto r = run({name, "--help"});
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("Usage: neurarch-trace " + name + " "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\nSubcommands:\n"), std::string::npos) << name;
  }
}

TEST(CliSubcommands, TraceByNameIsTheDefault) {
  const auto by_default = run({"gpt2", "--format", "json", "--seq", "64"});
  const auto by_name = run({"trace", "gpt2", "--format", "json", "--seq", "64"});
  ASSERT_EQ(by_default.code, 0) << by_default.err;
  ASSERT_EQ(by_name.code, 0) << by_name.err;
  EXPECT_EQ(by_name.out, by_default.out);
  // Without MODEL the trace says so and shows the help of the command it was given.
  const auto bare = run({"trace"});
  EXPECT_EQ(bare.code, 2);
  EXPECT_NE(bare.err.find("MODEL is required"), std::string::npos) << bare.err;
  EXPECT_NE(bare.err.find("Usage: neurarch-trace trace"), std::string::npos) << bare.err;
}

TEST(CliSubcommands, MainFlagsBesideASubcommandAreRefused) {
  const auto flag = run({"--plan", "lint", "gpt2"});
  EXPECT_EQ(flag.code, 109);  // CLI11's ExtrasError, as for any argument the command does not take
  EXPECT_NE(flag.err.find("--plan"), std::string::npos) << flag.err;
  const auto model = run({"gpt2", "serve"});
  EXPECT_EQ(model.code, 109);
  EXPECT_NE(model.err.find("gpt2"), std::string::npos) << model.err;
}
