// libFuzzer target for the whole config path: bytes -> Config -> graph -> checkpoint comparison ->
// plan (options drawn from the input) -> lint -> every renderer (JSON, text, Markdown, HTML).
// Any input must end in a report or a neurarch::Error, never a crash, a hang, an overflow or another
// exception; the build stays inside its budget however large the config says it is.
//
// Input: config.json bytes, then optionally a NUL byte and option bytes (batch, seq, image size,
// optimizer, attention, LoRA, checkpoint edits): seeds are plain configs, and the fuzzer learns the rest.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include <fuzzer/FuzzedDataProvider.h>

#include "checkpoint/compare.hpp"
#include "checkpoint/safetensors.hpp"
#include "core/error.hpp"
#include "core/limits.hpp"
#include "graph/budget.hpp"
#include "lint/lint.hpp"
#include "plan/hardware.hpp"
#include "render/render.hpp"
#include "pipeline/trace.hpp"

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// A checkpoint that holds what the graph saves, then loses, reshapes or retypes a few tensors.
neurarch::checkpoint::Checkpoint checkpoint_of(const neurarch::graph::Graph& g, FuzzedDataProvider& in) {
  neurarch::checkpoint::Checkpoint ck;
  ck.files = {"model.safetensors"};
  std::uint64_t at = 0;
  for (const auto& t : g.tensors) {
    if (!t.saved()) continue;
    neurarch::checkpoint::CheckpointTensor c{t.name, t.dtype, t.shape, at, at, "model.safetensors"};
    switch (in.ConsumeIntegralInRange<int>(0, 15)) {
      case 0: continue;  // missing
      case 1: c.shape.push_back(2); break;
      case 2: c.dtype = neurarch::DType::I8; break;
      case 3: c.name += ".extra"; break;
      default: break;
    }
    c.end = c.begin + static_cast<std::uint64_t>(c.scalars()) * static_cast<std::uint64_t>(neurarch::dtype_bytes(c.dtype));
    at = c.end;
    ck.total_scalars += c.scalars();
    ck.tensors.push_back(std::move(c));
  }
  return ck;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto* nul = static_cast<const std::uint8_t*>(std::memchr(data, 0, size));
  const std::size_t config_size = nul ? static_cast<std::size_t>(nul - data) : size;
  FuzzedDataProvider in(nul ? nul + 1 : data + size, nul ? size - config_size - 1 : 0);

  neurarch::resolve::ResolvedModel model;
  model.id = "fuzz";
  model.source = "pasted";
  model.config_origin = "config.json";
  model.config_text.assign(reinterpret_cast<const char*>(data), config_size);

  neurarch::pipeline::TraceOptions options;
  options.read_checkpoint = false;
  options.lint = in.ConsumeBool();
  if (in.ConsumeBool()) options.build.seq = in.ConsumeIntegralInRange<std::int64_t>(-2, 1 << 16);
  if (in.ConsumeBool()) options.build.image_size = in.ConsumeIntegralInRange<std::int64_t>(-2, 4096);
  if (in.ConsumeBool()) options.build.target_seq = in.ConsumeIntegralInRange<std::int64_t>(-2, 1 << 12);
  neurarch::plan::PlanOptions plan;
  plan.full.batch = in.ConsumeIntegralInRange<std::int64_t>(0, 1 << 12);
  // Every value of the setup vocabulary's enums (src/plan/setup.hpp).
  plan.full.optimizer = static_cast<neurarch::plan::Optimizer>(
      in.ConsumeIntegralInRange<int>(0, static_cast<int>(neurarch::plan::Optimizer::None)));
  plan.full.attention = in.ConsumeBool() ? neurarch::plan::AttentionImpl::Eager : neurarch::plan::AttentionImpl::SDPA;
  plan.full.grad_checkpointing = in.ConsumeBool();
  plan.full.precision = static_cast<neurarch::plan::Precision>(
      in.ConsumeIntegralInRange<int>(0, static_cast<int>(neurarch::plan::Precision::Fp16)));
  plan.full.loss = static_cast<neurarch::plan::Loss>(
      in.ConsumeIntegralInRange<int>(0, static_cast<int>(neurarch::plan::Loss::LogitsSum)));
  plan.full.loss_chunk = in.ConsumeIntegralInRange<std::int64_t>(0, 4096);
  plan.full.keep_gradients = in.ConsumeBool();
  plan.full.optimizer_foreach = in.ConsumeBool();
  plan.lora = plan.full;
  plan.lora.mode = in.ConsumeBool() ? neurarch::plan::Mode::QLoRA : neurarch::plan::Mode::LoRA;
  plan.lora.lora_rank = in.ConsumeIntegralInRange<std::int64_t>(0, 1024);
  if (in.ConsumeBool()) plan.lora.lora_targets = {in.ConsumeRandomLengthString(32)};
  plan.run.epochs = in.ConsumeIntegralInRange<std::int64_t>(1, 1000);
  plan.run.global_batch = in.ConsumeIntegralInRange<std::int64_t>(1, 1 << 20);
  plan.run.samples = in.ConsumeIntegralInRange<std::int64_t>(1, std::int64_t{1} << 40);
  plan.cards = neurarch::plan::default_cards();
  const bool planned = in.ConsumeBool();
  if (planned) options.plan = plan;

  // A budget like the server's, smaller so that each input runs in milliseconds: the declared-size
  // check and the builder must keep every input inside it.
  constexpr std::int64_t kBudget = 1 << 15;
  const neurarch::graph::BudgetScope budget({kBudget, kBudget, std::nullopt});
  try {
    auto r = neurarch::pipeline::trace(model, options);
    check(static_cast<std::int64_t>(r.graph.nodes.size()) <= kBudget);
    check(static_cast<std::int64_t>(r.graph.tensors.size()) <= kBudget);
    r.checkpoint = neurarch::checkpoint::compare(r.graph, checkpoint_of(r.graph, in));
    if (!planned && r.graph.forward.ok) r.plan = neurarch::plan::make_plan(r.graph, plan);
    (void)neurarch::render::json(r);
    (void)neurarch::render::text(r);
    (void)neurarch::render::markdown(r);
    (void)neurarch::render::html(r, {std::vector<neurarch::render::ChangeRow>{{"2026-01-01", "abc", "<b>"}}, "cmd"});
  } catch (const neurarch::Error& e) {
    check(std::strchr(e.what(), '\n') == nullptr);  // one-line errors
  }
  return 0;
}
