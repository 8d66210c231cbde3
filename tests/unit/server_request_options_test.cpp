#include <gtest/gtest.h>

#include "server/request_options.hpp"

namespace neurarch::server {
namespace {
using Json = nlohmann::json;

TEST(ServerRequestOptions, DefaultsMatchTheCli) {
  const auto o = default_request_options();
  EXPECT_EQ(o.plan.full.batch, 1);
  EXPECT_EQ(o.plan.full.mode, plan::Mode::Full);
  EXPECT_EQ(o.plan.lora.mode, plan::Mode::LoRA);
  EXPECT_EQ(o.plan.lora.lora_rank, 16);
  EXPECT_TRUE(o.plan.full.precision == plan::Precision::AmpBf16);
  EXPECT_EQ(o.plan.run.epochs, 10);
  EXPECT_EQ(o.plan.cards.size(), plan::default_cards().size());
  EXPECT_EQ(o.query, "");
  EXPECT_EQ(o.cli_flags, "");
}

TEST(ServerRequestOptions, JsonAndQueryAgreeAndKeysAreCanonical) {
  const auto from_json = options_from_json(
      Json{{"batch", 4}, {"qlora", true}, {"lora_targets", {"q_proj", "v_proj"}}, {"autocast", false}, {"model", "x"}},
      {"model"});
  const auto from_query = options_from_query(
      {{"lora_targets", "q_proj,v_proj"}, {"autocast", "false"}, {"qlora", "on"}, {"batch", "4"}});
  EXPECT_EQ(from_json.key, from_query.key);
  EXPECT_EQ(from_json.plan.lora.mode, plan::Mode::QLoRA);
  EXPECT_FALSE(from_json.plan.full.precision == plan::Precision::AmpBf16);
  EXPECT_EQ(from_json.plan.full.lora_targets, (std::vector<std::string>{"q_proj", "v_proj"}));
  EXPECT_NE(from_json.key, default_request_options().key);
  EXPECT_EQ(from_json.cli_flags, " --precision fp32 --batch 4 --lora-targets q_proj,v_proj --qlora");
  EXPECT_EQ(from_json.query, "autocast=false&batch=4&lora_targets=q_proj,v_proj&qlora=true");
}

TEST(ServerRequestOptions, RefusesWhatItDoesNotKnowOrCannotBound) {
  EXPECT_THROW(options_from_json(Json{{"bogus", 1}}, {}), OptionError);
  EXPECT_THROW(options_from_json(Json{{"batch", 0}}, {}), OptionError);
  EXPECT_THROW(options_from_json(Json{{"batch", 1.5}}, {}), OptionError);
  EXPECT_THROW(options_from_json(Json{{"batch", 70000}}, {}), OptionError);
  EXPECT_THROW(options_from_json(Json{{"seq", 1 << 21}}, {}), OptionError);
  EXPECT_THROW(options_from_json(Json{{"attention", "flash"}}, {}), OptionError);
  EXPECT_THROW(options_from_json(Json{{"qlora", "yes"}}, {}), OptionError);
  EXPECT_THROW(options_from_json(Json{{"card", "nope"}}, {}), OptionError);
  EXPECT_THROW(options_from_json(Json{{"lora_targets", Json::array({1})}}, {}), OptionError);
  EXPECT_THROW(options_from_json(Json::array(), {}), OptionError);
  EXPECT_THROW(options_from_query({{"batch", "4x"}}), OptionError);
  EXPECT_THROW(options_from_query({{"batch", "1"}, {"batch", "2"}}), OptionError);
  try {
    options_from_json(Json{{"lora_rank", -1}}, {});
    FAIL();
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("lora_rank"), std::string::npos);
  }
}

// Regression (fuzz/server_fuzzer.cpp): a query string is not UTF-8-checked on the way in, and the cache
// key's JSON writer threw on such bytes instead of the request being answered.
TEST(ServerRequestOptions, QueryBytesThatAreNotUtf8AreAnsweredNotThrown) {
  try {
    const auto o = options_from_query({{"lora_targets", "\xff_proj"}});
    EXPECT_FALSE(o.key.empty());
  } catch (const OptionError&) {
    // refusing the value is an answer too; any other exception is the bug
  }
}

// Regression (fuzz/server_fuzzer.cpp, seed fuzz/corpus/server/regression-newline-in-key): a refused key
// is echoed in the message; a newline in it made the error two lines, and a query key that is not UTF-8
// made the JSON error answer throw (GET /models/gpt2.json?%ff%0a=1 was a 500).
TEST(ServerRequestOptions, ARefusedKeyIsEchoedOnOneLineOfUtf8) {
  const auto message = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const OptionError& e) {
      return e.what();
    }
    return "no error";
  };
  const std::string newline = message([] { options_from_json(Json{{"lora_ra\nk", 8}}, {}); });
  EXPECT_EQ(newline, "lora_ra\\nk: unknown option (see GET / for the list)");
  const std::string bytes = message([] { options_from_query({{"\xff\n", "1"}}); });
  EXPECT_EQ(bytes.find('\n'), std::string::npos) << bytes;
  EXPECT_NO_THROW((void)Json(bytes).dump()) << "not UTF-8: " << bytes;
  EXPECT_EQ(message([] { options_from_json(Json{{"card", "T\t4"}}, {}); }).find('\t'), std::string::npos);
}

}  // namespace
}  // namespace neurarch::server
