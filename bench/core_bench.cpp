// Speed targets of the core (issue "Core"): measured here, never in unit tests.
//   graph of a 70B-class config + its JSON render   well under 1 ms in-process
//   a whole neurarch-trace process on the default   under 20 ms
//   a safetensors index / header of 100,000 tensors under 100 ms
// Run: build/bench/neurarch_bench   (README lists the figures measured on the CI machine size)
#include <spawn.h>
#include <sys/wait.h>

#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "checkpoint/safetensors.hpp"
#include "core/config.hpp"
#include "model/build.hpp"
#include "render/render.hpp"

extern char** environ;

namespace {

// Llama-2-70B's published architecture: 80 layers, GQA 64/8, SwiGLU 28672.
const char* kLlama70B = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
  "intermediate_size": 28672, "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
  "vocab_size": 32000, "max_position_embeddings": 4096, "rms_norm_eps": 1e-05, "torch_dtype": "float16"})";

void BM_Build70BAndRenderJson(benchmark::State& state) {
  auto config = neurarch::Config::parse(kLlama70B, "llama-70b.json");
  for (auto _ : state) {
    auto built = neurarch::model::build_model(config);
    neurarch::report::Report r;
    r.graph = std::move(built.graph);
    auto text = neurarch::render::json(r);
    benchmark::DoNotOptimize(text.data());
  }
}
BENCHMARK(BM_Build70BAndRenderJson)->Unit(benchmark::kMicrosecond);

void BM_TraceProcessOnDefaultModel(benchmark::State& state) {
  const char* argv[] = {NEURARCH_TRACE_BIN, "facebook/dinov2-small", "--format", "json", "-o", "/dev/null", nullptr};
  for (auto _ : state) {
    pid_t pid;
    if (posix_spawn(&pid, NEURARCH_TRACE_BIN, nullptr, nullptr, const_cast<char**>(argv), environ) != 0) {
      state.SkipWithError("cannot start neurarch-trace");
      return;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      state.SkipWithError("neurarch-trace failed");
      return;
    }
  }
}
BENCHMARK(BM_TraceProcessOnDefaultModel)->Unit(benchmark::kMillisecond);

std::string index_of(int tensors) {
  nlohmann::json map = nlohmann::json::object();
  for (int i = 0; i < tensors; ++i)
    map[fmt::format("model.layers.{}.mlp.experts.{}.down_proj.weight", i / 1000, i % 1000)] =
        fmt::format("model-{:05d}-of-00100.safetensors", i / 1000 + 1);
  return nlohmann::json{{"metadata", {{"total_size", 1}}}, {"weight_map", map}}.dump();
}

void BM_ParseIndex100kTensors(benchmark::State& state) {
  auto text = index_of(100000);
  for (auto _ : state) {
    auto map = neurarch::checkpoint::parse_safetensors_index(text, "model.safetensors.index.json");
    benchmark::DoNotOptimize(map.size());
  }
}
BENCHMARK(BM_ParseIndex100kTensors)->Unit(benchmark::kMillisecond);

void BM_ParseHeader100kTensors(benchmark::State& state) {
  nlohmann::json header = nlohmann::json::object();
  std::uint64_t offset = 0;
  for (int i = 0; i < 100000; ++i) {
    header[fmt::format("model.layers.{}.experts.{}.w.weight", i / 1000, i % 1000)] = {
        {"dtype", "BF16"}, {"shape", {64, 64}}, {"data_offsets", {offset, offset + 64 * 64 * 2}}};
    offset += 64 * 64 * 2;
  }
  std::string text = header.dump();
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[static_cast<std::size_t>(i)] = static_cast<char>((text.size() >> (8 * i)) & 0xFF);
  bytes += text;
  for (auto _ : state) {
    auto ck = neurarch::checkpoint::parse_safetensors_header(bytes, bytes.size() + offset, "model.safetensors");
    benchmark::DoNotOptimize(ck.total_scalars);
  }
}
BENCHMARK(BM_ParseHeader100kTensors)->Unit(benchmark::kMillisecond);

}  // namespace
