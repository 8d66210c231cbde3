#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli.hpp"
#include "families/family.hpp"
#include "support/safetensors_writer.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Run {
  int code;
  std::string out, err;
};

Run trace(std::vector<std::string> args, const std::string& stdin_text = "") {
  args.insert(args.begin(), "neurarch-trace");
  std::vector<const char*> argv;
  for (auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  std::istringstream in(stdin_text);
  int code = neurarch::cli::run(static_cast<int>(argv.size()), argv.data(), out, err, in);
  return {code, out.str(), err.str()};
}

const char* kTinyDinov2 = R"({"model_type": "dinov2", "architectures": ["Dinov2Model"], "hidden_size": 32,
  "num_hidden_layers": 2, "num_attention_heads": 4, "image_size": 28, "patch_size": 14})";

fs::path fresh_dir(const std::string& name) {
  auto dir = fs::temp_directory_path() / ("neurarch_cli_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::vector<neurarch::testing::FakeTensor> tensors_of(const json& report) {
  std::vector<neurarch::testing::FakeTensor> out;
  for (const auto& t : report["tensors"])
    if (!t.contains("tied_to")) out.push_back({t["name"], t["shape"].get<std::vector<std::int64_t>>(), t["dtype"]});
  return out;
}

}  // namespace

TEST(Cli, Dinov2SmallFromTheCatalogue) {
  auto r = trace({"facebook/dinov2-small", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "neurarch.report/v1");
  EXPECT_EQ(j["model"]["source"], "catalogue");
  EXPECT_EQ(j["input"]["shape"], json({3, 518, 518}));
  EXPECT_EQ(j["layers"].size(), 101u);
  EXPECT_EQ(j["layer_count"], 99);
  EXPECT_EQ(j["parameters"]["derived"], 22056576);
  EXPECT_TRUE(j["parameters"]["checkpoint"].is_null());
  EXPECT_TRUE(j["forward_pass"]["ok"]);
  EXPECT_EQ(j["layers"][50]["output_shape"], json({1370, 384}));
}

TEST(Cli, TextAndMarkdownSayTheSame) {
  auto text = trace({"facebook/dinov2-small"});
  ASSERT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("Will it forward-pass: Yes"), std::string::npos);
  EXPECT_NE(text.out.find("22,056,576"), std::string::npos);
  EXPECT_NE(text.out.find("Attention_3"), std::string::npos);
  auto md = trace({"facebook/dinov2-small", "--format", "markdown"});
  ASSERT_EQ(md.code, 0);
  EXPECT_NE(md.out.find("## Layers"), std::string::npos);
  EXPECT_NE(md.out.find("Will it forward-pass: Yes"), std::string::npos);
}

TEST(Cli, ConfigFromStdin) {
  auto r = trace({"-", "--format", "json"}, kTinyDinov2);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["model"]["source"], "stdin");
}

TEST(Cli, BadInputIsOneLineAndNonZero) {
  auto bad_json = trace({"-"}, "{\"model_type\": \"dinov2\",\n  oops}");
  EXPECT_EQ(bad_json.code, 2);
  EXPECT_TRUE(bad_json.out.empty());
  EXPECT_EQ(std::count(bad_json.err.begin(), bad_json.err.end(), '\n'), 1) << bad_json.err;
  EXPECT_NE(bad_json.err.find(":2:"), std::string::npos) << bad_json.err;

  auto unknown = trace({"facebook/dinov2-smal", "--offline"});
  EXPECT_EQ(unknown.code, 3);
  EXPECT_NE(unknown.err.find("facebook/dinov2-small"), std::string::npos) << unknown.err;

  auto bad_seq = trace({"-", "--seq", "-5"}, kTinyDinov2);
  EXPECT_NE(bad_seq.code, 0);
}

TEST(Cli, OutputFileIsWrittenWholeOrNotAtAll) {
  auto dir = fresh_dir("output");
  auto ok = trace({"-", "--format", "json", "-o", (dir / "r.json").string()}, kTinyDinov2);
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_NO_THROW(json::parse(std::ifstream(dir / "r.json")));
  auto bad = trace({"-", "-o", (dir / "bad.json").string()}, "[]");
  EXPECT_NE(bad.code, 0);
  EXPECT_FALSE(fs::exists(dir / "bad.json"));
  EXPECT_FALSE(fs::exists(dir / "bad.json.partial"));
}

TEST(Cli, CheckpointHeadersMatchToTheTensor) {
  auto dir = fresh_dir("ckpt_match");
  std::ofstream(dir / "config.json") << kTinyDinov2;
  auto derived = json::parse(trace({"-", "--format", "json"}, kTinyDinov2).out);
  neurarch::testing::write_safetensors(dir / "model.safetensors", tensors_of(derived));

  auto r = trace({dir.string(), "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = json::parse(r.out);
  EXPECT_EQ(j["parameters"]["checkpoint"], j["parameters"]["derived"]);
  EXPECT_EQ(j["parameters"]["delta"], 0);
  EXPECT_TRUE(j["checkpoint_diff"]["missing"].empty());
  EXPECT_TRUE(j["checkpoint_diff"]["unexpected"].empty());
  EXPECT_TRUE(j["checkpoint_diff"]["mismatched"].empty());
}

TEST(Cli, CheckpointDiffNamesEveryDifference) {
  auto dir = fresh_dir("ckpt_diff");
  std::ofstream(dir / "config.json") << kTinyDinov2;
  auto derived = json::parse(trace({"-", "--format", "json"}, kTinyDinov2).out);
  auto tensors = tensors_of(derived);
  std::string dropped = tensors.back().name;
  tensors.pop_back();                                        // missing from the file
  tensors[0].shape.back() += 1;                              // reshaped
  tensors[1].dtype = "BF16";                                 // re-typed
  tensors.push_back({"encoder.layer.0.attn.bias", {1, 1, 4, 4}, "U8"});  // legacy buffer
  tensors.push_back({"mystery.weight", {3}, "F32"});
  neurarch::testing::write_safetensors(dir / "model.safetensors", tensors);

  auto j = json::parse(trace({dir.string(), "--format", "json"}).out);
  const auto& diff = j["checkpoint_diff"];
  ASSERT_EQ(diff["missing"].size(), 1u);
  EXPECT_EQ(diff["missing"][0]["name"], dropped);
  ASSERT_EQ(diff["mismatched"].size(), 2u);
  EXPECT_EQ(diff["mismatched"][0]["reason"], "shape");
  EXPECT_EQ(diff["mismatched"][1]["reason"], "dtype");
  ASSERT_EQ(diff["unexpected"].size(), 2u);
  EXPECT_NE(j["parameters"]["delta"], 0);

  auto text = trace({dir.string()});
  EXPECT_NE(text.out.find("only in checkpoint"), std::string::npos);
  EXPECT_NE(text.out.find("older transformers"), std::string::npos);
}

TEST(Cli, CheckpointSavedFromTheBaseClassIsRecognised) {
  auto dir = fresh_dir("ckpt_prefix");
  std::string head_config = std::string(kTinyDinov2);
  head_config.replace(head_config.find("Dinov2Model"), 11, "Dinov2ForImageClassification");
  std::ofstream(dir / "config.json") << head_config;
  auto base = json::parse(trace({"-", "--format", "json"}, kTinyDinov2).out);
  neurarch::testing::write_safetensors(dir / "model.safetensors", tensors_of(base));

  auto j = json::parse(trace({dir.string(), "--format", "json"}).out);
  EXPECT_EQ(j["model"]["class"], "Dinov2ForImageClassification");
  const auto& diff = j["checkpoint_diff"];
  EXPECT_TRUE(diff["unexpected"].empty()) << diff.dump();
  ASSERT_EQ(diff["missing"].size(), 2u);  // only the classifier's weight and bias
  EXPECT_NE(diff["notes"][0].get<std::string>().find("'dinov2.' prefix"), std::string::npos);
}

TEST(Cli, ListArchitecturesNamesEachFamilyWithItsModelTypes) {
  auto r = trace({"--list-architectures"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto llama = r.out.find("\nllama  (");
  ASSERT_NE(llama, std::string::npos) << r.out;
  auto next_family = r.out.find("\n", r.out.find("classes:", llama));
  auto block = r.out.substr(llama, next_family - llama);
  EXPECT_NE(block.find("code_llama"), std::string::npos) << block;
  EXPECT_NE(block.find("LlamaForCausalLM"), std::string::npos) << block;
  for (const auto& type : neurarch::families::supported_model_types())
    EXPECT_NE(r.out.find(type), std::string::npos) << type;
}

TEST(Cli, UnsupportedModelTypeFailsWithoutAGuess) {
  auto r = trace({"-"}, R"({"model_type": "no_such_architecture", "hidden_size": 64})");
  EXPECT_EQ(r.code, 4);
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(r.err.find("no_such_architecture"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
