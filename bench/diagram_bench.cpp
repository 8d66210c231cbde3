// Speed target of the architecture diagram: a 70B model's diagram (layout + SVG) stays under 10 ms
// in-process. The graph is built once outside the loop: only the drawing is timed.
// Run: build/bench/neurarch_bench --benchmark_filter=Diagram   (docs/speed.md lists the figures)
#include <benchmark/benchmark.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "render/diagram.hpp"
#include "render/render.hpp"

namespace {

// Llama-2-70B's published architecture: 80 layers, GQA 64/8, SwiGLU 28672.
const char* kLlama70B = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
  "intermediate_size": 28672, "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
  "vocab_size": 32000, "max_position_embeddings": 4096, "rms_norm_eps": 1e-05, "torch_dtype": "float16"})";

void BM_Diagram70B(benchmark::State& state) {
  auto config = neurarch::Config::parse(kLlama70B, "llama-70b.json");
  neurarch::report::Report r;
  r.graph = neurarch::model::build_model(config).graph;
  r.model.id = "meta-llama/Llama-2-70b-hf";
  for (auto _ : state) {
    auto svg = neurarch::render::diagram(r);
    benchmark::DoNotOptimize(svg.data());
  }
}
BENCHMARK(BM_Diagram70B)->Unit(benchmark::kMicrosecond);

}  // namespace
