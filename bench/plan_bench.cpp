// Planner speed target (issue "Planner"): the whole plan of a 70B-class model — full and LoRA
// timelines, the largest batch on every card, FSDP counts, the split check and the cost — well
// under 5 ms in-process.
#include <benchmark/benchmark.h>

#include "core/config.hpp"
#include "model/build.hpp"
#include "plan/options.hpp"
#include "plan/plan.hpp"

namespace {

const char* kLlama70B = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 8192,
  "intermediate_size": 28672, "num_hidden_layers": 80, "num_attention_heads": 64, "num_key_value_heads": 8,
  "vocab_size": 32000, "max_position_embeddings": 4096, "rms_norm_eps": 1e-05, "torch_dtype": "float16"})";

void BM_Plan70BAllCards(benchmark::State& state) {
  auto config = neurarch::Config::parse(kLlama70B, "llama-70b.json");
  auto built = neurarch::model::build_model(config);
  neurarch::plan::PlanOptions options;
  options.full.mode = neurarch::plan::Mode::Full;
  options.lora.mode = neurarch::plan::Mode::LoRA;
  for (auto _ : state) {
    auto plan = neurarch::plan::make_plan(built.graph, options);
    benchmark::DoNotOptimize(plan.cards.size());
  }
}
BENCHMARK(BM_Plan70BAllCards)->Unit(benchmark::kMillisecond);

// The same with a framework preset read through the options table (litgpt QLoRA on q/v, chunked
// loss, a load phase): the preset lookup and the table must not move the target.
void BM_Plan70BFrameworkPreset(benchmark::State& state) {
  auto config = neurarch::Config::parse(kLlama70B, "llama-70b.json");
  auto built = neurarch::model::build_model(config);
  for (auto _ : state) {
    neurarch::plan::SetupChoices choices;
    choices.set("framework", "litgpt");
    choices.set("qlora", "true");
    choices.set_list("lora_targets", {"query", "value"});
    choices.set("batch", "2");
    auto options = neurarch::plan::plan_options(choices, neurarch::plan::default_runtime());
    options.cards = neurarch::plan::default_cards();
    auto plan = neurarch::plan::make_plan(built.graph, options);
    benchmark::DoNotOptimize(plan.cards.size());
  }
}
BENCHMARK(BM_Plan70BFrameworkPreset)->Unit(benchmark::kMillisecond);

}  // namespace
