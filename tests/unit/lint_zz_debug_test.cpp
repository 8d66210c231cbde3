#include <filesystem>
#include <fstream>
#include <sstream>
#include <iostream>
#include <gtest/gtest.h>
#include "families/family.hpp"
#include "lint_test_support.hpp"
namespace fs = std::filesystem;
using namespace lint_test;
TEST(LintZzDebug, Defaults) {
  const fs::path root = fs::path(NEURARCH_SOURCE_DIR) / ".." / "shared" / "groundtruth" / "defaults";
  for (const auto& type : neurarch::families::supported_model_types()) {
    if (!fs::is_directory(root / type) || type == "bitnet" || type == "codegen") continue;
    for (const auto& e : fs::directory_iterator(root / type)) {
      std::ifstream f(e.path()); std::stringstream ss; ss << f.rdbuf();
      auto gt = json::parse(ss.str());
      neurarch::resolve::ResolvedModel m{type, "", "stdin", gt["config"].dump(), e.path().string(), std::nullopt};
      neurarch::report::TraceOptions o; o.build.class_name = gt.value("class", ""); o.read_checkpoint = false;
      std::cerr << "TRY " << e.path() << std::endl; try { auto r = neurarch::report::trace(m, o);
        for (const auto& x : neurarch::lint::run(r)) std::cout << type << "/" << e.path().filename().string() << " " << x.severity << " [" << x.rule << "] " << x.node << ": " << x.message << "\n";
      } catch (const std::exception& ex) { std::cout << type << " TRACEFAIL " << ex.what() << "\n"; }
    }
  }
}
TEST(LintZzDebug, Catalogue) {
  for (const auto& e : fs::directory_iterator(fs::path(NEURARCH_SOURCE_DIR) / "data" / "catalogue")) {
    std::ifstream f(e.path()); std::stringstream ss; ss << f.rdbuf();
    auto cfg = json::parse(ss.str());
    if (!neurarch::families::find_family(cfg.value("model_type", ""))) { std::cout << e.path().filename().string() << " UNREGISTERED\n"; continue; }
    auto fs_ = lint(cfg);
    if (fs_.empty()) std::cout << e.path().filename().string() << " (none)\n";
    for (const auto& x : fs_) std::cout << e.path().filename().string() << " " << x.severity << " [" << x.rule << "] " << x.node << ": " << x.message << " -- fix: " << x.fix << "\n";
  }
}
TEST(LintZzDebug, Examples) {
  neurarch::lint::Options lora; lora.lora = true; lora.seq = 1024;
  std::vector<std::pair<json, Traced>> cases = {
    {gpt2(), {.seq = 512}}, {bert({{"hidden_size", 130}}), {}}, {llama({{"num_key_value_heads", 3}}), {}},
    {qwen2({{"head_dim", 64}}), {}}, {llama({{"eos_token_id", 600}}), {}},
    {mistral({{"sliding_window", 512}}), {}}, {qwen2({{"use_sliding_window", true}}), {}}, {llama({{"sliding_window", 64}}), {}},
    {gpt2({{"rope_scaling", {{"rope_type", "linear"}, {"factor", 2.0}}}}), {}},
    {llama({{"rope_scaling", {{"rope_type", "llama3"}, {"factor", 8.0}}}}), {}},
    {vit({{"image_size", 60}}), {}}, {vit({{"architectures", {"ViTForMaskedImageModeling"}}, {"encoder_stride", 32}, {"image_size", 60}}), {}},
    {gpt2({{"activation_function", "gelu_tanh"}}), {}}, {llama({{"torch_dtype", "fp16"}}), {}},
    {llama({{"torch_dtype", "float16"}, {"rms_norm_eps", 0}}), {}}, {bert({{"torch_dtype", "float16"}}), {}},
    {llama({{"rope_theta", 0}}), {}}, {llama({{"max_position_embeddings", 131072}}), {}},
    {llama({{"rope_scaling", {{"rope_type", "linear"}, {"factor", 0.5}}}}), {}},
    {llama({{"final_logit_softcapping", 30.0}}), {}},
    {llama({{"vocab_size", 520}, {"hidden_size", 132}, {"intermediate_size", 250}}), {}},
    {llama({{"head_dim", 36}}), {}}, {llama({{"head_dim", 512}}), {}},
    {llama({{"num_hidden_layers", 24}}), {.seq = 1024}},
    {bert({{"hidden_dropout_prob", 0.1}, {"architectures", {"BertForSequenceClassification"}}, {"num_labels", 3}, {"id2label", {{"0","a"},{"1","b"}}}}), {}},
  };
  for (auto& [cfg, t] : cases) {
    auto o = lora; if (!t.seq) o.seq.reset();
    for (const auto& x : lint(cfg, o, t)) std::cout << x.severity << " [" << x.rule << "] " << x.node << ": " << x.message << "\n      fix: " << x.fix << "\n";
    std::cout << "--\n";
  }
}
