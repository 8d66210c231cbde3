#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "core/error.hpp"
#include "model/build.hpp"

using neurarch::Config;
using neurarch::Error;

namespace {
std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Config, InvalidJsonNamesLineAndColumn) {
  auto msg = error_of([] { Config::parse("{\n  \"a\": 1,\n  \"b\": ]\n}", "config.json"); });
  EXPECT_NE(msg.find("config.json:3:"), std::string::npos) << msg;
  EXPECT_NE(msg.find("invalid JSON"), std::string::npos) << msg;
}

TEST(Config, NonObjectIsRefused) {
  auto msg = error_of([] { Config::parse("[1, 2]", "config.json"); });
  EXPECT_NE(msg.find("must be a JSON object, found array"), std::string::npos) << msg;
}

TEST(Config, PythonLiteralsParse) {
  auto c = Config::parse(R"({"x": NaN, "y": Infinity, "s": "NaN stays", "z": -Infinity})", "c.json");
  EXPECT_FALSE(c.has("x"));
  EXPECT_GT(c.number({"y"}), 1e300);
  EXPECT_EQ(c.text({"s"}), "NaN stays");
}

TEST(Config, AliasesDefaultsAndProvenance) {
  auto c = Config::parse(R"({"n_embd": 768, "head_dim": null})", "c.json");
  EXPECT_EQ(c.dim({"n_embd", "hidden_size"}, 1), 768);
  EXPECT_EQ(c.dim({"head_dim"}, 64), 64);  // null means "use the default", as the reference does
  ASSERT_EQ(c.reads().size(), 2u);
  EXPECT_TRUE(c.reads()[0].from_file);
  EXPECT_FALSE(c.reads()[1].from_file);
}

TEST(Config, EveryReadKeepsTheSpellingsTheFamilyAccepted) {
  auto c = Config::parse(R"({"n_embd": 768, "text_config": {}})", "c.json");
  c.dim({"n_embd", "hidden_size"}, 1);
  c.dim({"n_positions", "max_position_embeddings"}, 1024);  // absent: the default is logged under the first
  c.child("text_config").dim({"d_model", "hidden_size"}, 512);
  ASSERT_EQ(c.reads().size(), 3u);
  EXPECT_EQ(c.reads()[0].aliases, (std::vector<std::string>{"n_embd", "hidden_size"}));
  EXPECT_EQ(c.reads()[1].key, "n_positions");
  EXPECT_EQ(c.reads()[1].aliases, (std::vector<std::string>{"n_positions", "max_position_embeddings"}));
  EXPECT_EQ(c.reads()[2].aliases, (std::vector<std::string>{"text_config.d_model", "text_config.hidden_size"}));
  // Another read that lands on the same key (n_embd is the spelling present) adds its new spellings, once.
  c.dim({"hidden_size", "n_embd", "dim"}, 1);
  c.integer({"n_embd", "embed_dim"}, 1);
  EXPECT_EQ(c.reads().size(), 3u);
  EXPECT_EQ(c.reads()[0].aliases, (std::vector<std::string>{"n_embd", "hidden_size", "dim", "embed_dim"}));
}

TEST(Config, IntegersBeyondInt64AreRefusedBeforeAnyConversion) {
  // 51222222222222222224 does not fit a uint64, so the JSON parser reads it as a float; converting it to int64
  // would be undefined behaviour (found by the config fuzzer).
  auto c = Config::parse(R"({"max_position_embeddings": 51222222222222222224, "n": 1e300, "m": -9.5e18})", "c.json");
  EXPECT_NE(error_of([&] { c.dim({"max_position_embeddings"}, 1); }).find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of([&] { c.integer({"n"}, 1); }).find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of([&] { c.integer({"m"}, 1); }).find("expected an integer"), std::string::npos);
}

TEST(Config, AbsurdSizesAreRefusedWithTheKey) {
  auto c = Config::parse(R"({"hidden_size": -4, "vocab_size": 0, "n": 1099511627776000, "f": 3.5})", "c.json");
  EXPECT_NE(error_of([&] { c.dim({"hidden_size"}); }).find("key 'hidden_size'"), std::string::npos);
  EXPECT_NE(error_of([&] { c.dim({"vocab_size"}); }).find("positive"), std::string::npos);
  EXPECT_NE(error_of([&] { c.dim({"n"}); }).find("absurd"), std::string::npos);
  EXPECT_NE(error_of([&] { c.integer({"f"}); }).find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of([&] { c.dim({"missing"}); }).find("missing required key"), std::string::npos);
}

TEST(Config, UnknownModelTypeSuggestsTheNearestAndWhereTheRestAre) {
  auto c = Config::parse(R"({"model_type": "nonexistent-arch"})", "c.json");
  auto msg = error_of([&] { neurarch::model::build_model(c); });
  EXPECT_NE(msg.find("\"nonexistent-arch\" is not supported"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--list-model-types"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("did you mean"), std::string::npos) << msg;  // nothing near: no guess
  EXPECT_LT(msg.size(), 300u) << msg;                            // one readable line, not the whole list
  auto typo = Config::parse(R"({"model_type": "lama"})", "c.json");
  msg = error_of([&] { neurarch::model::build_model(typo); });
  EXPECT_NE(msg.find("did you mean llama"), std::string::npos) << msg;
  auto hostile = Config::parse(R"({"model_type": "x\ny"})", "c.json");
  msg = error_of([&] { neurarch::model::build_model(hostile); });
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;  // the typed text is escaped, the error stays one line
}

TEST(Config, MissingModelTypeIsInferredFromArchitectures) {
  auto c = Config::parse(R"({"architectures": ["Dinov2Model"], "hidden_size": 32, "num_hidden_layers": 1,
                            "num_attention_heads": 2, "image_size": 28})",
                         "c.json");
  EXPECT_EQ(neurarch::model::build_model(c).model_type, "dinov2");
  auto none = Config::parse(R"({"hidden_size": 32})", "c.json");
  EXPECT_NE(error_of([&] { neurarch::model::build_model(none); }).find("model_type"), std::string::npos);
}

TEST(Config, ModelTotalOver2To40IsRefused) {
  auto c = Config::parse(R"({"model_type": "dinov2", "hidden_size": 1048576, "num_hidden_layers": 4096,
                            "num_attention_heads": 1})",
                         "c.json");
  auto msg = error_of([&] { neurarch::model::build_model(c); });
  EXPECT_NE(msg.find("2^40"), std::string::npos) << msg;
}

namespace {
bool has_read(const Config& c, const std::string& key, bool from_file) {
  for (const auto& r : c.reads())
    if (r.key == key) return r.from_file == from_file;
  return false;
}
}  // namespace

TEST(Config, ChildSharesTheReadLogWithItsKeyAsPrefix) {
  auto c = Config::parse(R"({"vision_config": {"hidden_size": 64}})", "c.json");
  const Config vision = c.child("vision_config");
  EXPECT_EQ(vision.dim({"hidden_size"}, 768), 64);
  EXPECT_EQ(vision.dim({"num_hidden_layers"}, 12), 12);
  EXPECT_EQ(c.child("text_config").dim({"hidden_size"}, 512), 512);  // absent: the sub-config's defaults
  EXPECT_TRUE(has_read(c, "vision_config.hidden_size", true));
  EXPECT_TRUE(has_read(c, "vision_config.num_hidden_layers", false));
  EXPECT_TRUE(has_read(c, "text_config.hidden_size", false));
  EXPECT_EQ(c.child("vision_config").child("x").origin(), "c.json: vision_config: x");
}

TEST(Config, ChildStandInDefaultsAreReportedAsDefaults) {
  auto c = Config::parse(R"({})", "c.json");
  EXPECT_EQ(c.child("text_config", {{"hidden_size", 2048}}).dim({"hidden_size"}, 1), 2048);
  EXPECT_TRUE(has_read(c, "text_config.hidden_size", false));
}

TEST(Config, ChildThatIsNotAnObjectNamesTheKey) {
  auto c = Config::parse(R"({"vision_config": 3})", "c.json");
  EXPECT_NE(error_of([&] { c.child("vision_config"); }).find("key 'vision_config'"), std::string::npos);
}

TEST(Config, RawAndHasRecordTheirKeys) {
  auto c = Config::parse(R"({"depths": [3, 3], "flag": null})", "c.json");
  ASSERT_NE(c.raw({"depths"}), nullptr);
  EXPECT_FALSE(c.has("flag"));
  EXPECT_TRUE(has_read(c, "depths", true));
  EXPECT_TRUE(has_read(c, "flag", false));
  EXPECT_EQ(c.dim({"flag"}, 7), 7);  // a typed default replaces the absence has() saw
  for (const auto& r : c.reads()) {
    if (r.key == "flag") {
      EXPECT_EQ(r.value, "7");
    }
  }
}

namespace {
std::vector<std::string> read_keys(const nlohmann::json& config) {
  const Config c(config, "config.json");
  neurarch::model::build_model(c);
  std::vector<std::string> keys;
  for (const auto& r : c.reads()) keys.push_back(r.key);
  return keys;
}
}  // namespace

TEST(Config, ClipDefaultConfigReadsReachIntoBothTowers) {
  const auto keys = read_keys({{"model_type", "clip"}});
  for (const char* key : {"projection_dim", "text_config.hidden_size", "text_config.num_hidden_layers",
                          "text_config.vocab_size", "vision_config.hidden_size", "vision_config.patch_size",
                          "vision_config.image_size"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
}

TEST(Config, ConvNextDefaultConfigReadsIncludeItsStageLists) {
  const auto keys = read_keys({{"model_type", "convnext"}});
  for (const char* key : {"depths", "hidden_sizes", "num_channels", "patch_size"})
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
}
