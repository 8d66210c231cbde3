#include <gtest/gtest.h>

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

TEST(Config, AbsurdSizesAreRefusedWithTheKey) {
  auto c = Config::parse(R"({"hidden_size": -4, "vocab_size": 0, "n": 1099511627776000, "f": 3.5})", "c.json");
  EXPECT_NE(error_of([&] { c.dim({"hidden_size"}); }).find("key 'hidden_size'"), std::string::npos);
  EXPECT_NE(error_of([&] { c.dim({"vocab_size"}); }).find("positive"), std::string::npos);
  EXPECT_NE(error_of([&] { c.dim({"n"}); }).find("absurd"), std::string::npos);
  EXPECT_NE(error_of([&] { c.integer({"f"}); }).find("expected an integer"), std::string::npos);
  EXPECT_NE(error_of([&] { c.dim({"missing"}); }).find("missing required key"), std::string::npos);
}

TEST(Config, UnknownModelTypeListsSupported) {
  auto c = Config::parse(R"({"model_type": "nonexistent-arch"})", "c.json");
  auto msg = error_of([&] { neurarch::model::build_model(c); });
  EXPECT_NE(msg.find("'nonexistent-arch' is not supported"), std::string::npos) << msg;
  EXPECT_NE(msg.find("dinov2"), std::string::npos) << msg;
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
