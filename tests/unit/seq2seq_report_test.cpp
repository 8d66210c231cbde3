// Reports of two-input models: "input" stays the main input and "inputs" lists every input, in
// both JSON writers and in the text report.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/config.hpp"
#include "model/build.hpp"
#include "render/render.hpp"
#include "report/report.hpp"

namespace {

neurarch::report::Report t5_report() {
  auto c = neurarch::Config::parse(R"({"model_type": "t5", "d_model": 32, "d_kv": 8, "d_ff": 64, "num_heads": 4,
                                       "num_layers": 1, "vocab_size": 50})",
                                   "config.json");
  neurarch::model::BuildOptions options;
  options.class_name = "T5ForConditionalGeneration";
  options.seq = 24;
  options.target_seq = 6;
  neurarch::report::Report r;
  r.graph = neurarch::model::build_model(c, options).graph;
  return r;
}

}  // namespace

TEST(Seq2SeqReport, JsonListsBothInputsAndTheMainOneStaysInput) {
  auto r = t5_report();
  auto j = neurarch::render::to_json(r);
  EXPECT_EQ(j["input"]["shape"], nlohmann::json({24}));
  ASSERT_TRUE(j.contains("inputs"));
  ASSERT_EQ(j["inputs"].size(), 2u);
  EXPECT_EQ(j["inputs"][1]["name"], "decoder_input_ids");
  EXPECT_EQ(j["inputs"][1]["shape"], nlohmann::json({6}));
  EXPECT_EQ(j["inputs"][1]["kind"], "tokens");
  EXPECT_EQ(nlohmann::json::parse(neurarch::render::json(r)), j);
}

TEST(Seq2SeqReport, TextNamesTheDecoderInput) {
  auto text = neurarch::render::text(t5_report(), {});
  EXPECT_NE(text.find("Input: tokens 24\n"), std::string::npos) << text.substr(0, 300);
  EXPECT_NE(text.find("decoder_input_ids: tokens 6\n"), std::string::npos) << text.substr(0, 300);
}
