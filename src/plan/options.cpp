#include "plan/options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "plan/presets.hpp"

namespace neurarch::plan {
namespace {

using K = OptionKind;

// Ranges keep one request's work bounded: the planner's cost grows with batch (bisection) and the
// graph with seq, never with epochs or samples.
const std::vector<OptionSpec> kOptions{
    {"framework", K::Choice, {"hf-trainer", "peft", "torchtune", "litgpt"}, 0, 0, "",
     "set the defaults below as this framework documents them (NAME or NAME@VERSION, e.g. hf-trainer@4.15); "
     "explicit options override",
     "--framework", "framework"},
    {"era", K::Choice, {"torch1.10-cuda11", "torch1-cuda11", "torch2-cuda12"}, 0, 0, "",
     "software generation: CUDA context size, zero_grad, optimizer and softmax defaults (data/setups.json)", "--era",
     "versions"},
    {"batch", K::Integer, {}, 1, 65536, "1", "batch size of the memory breakdown", "--batch", "batch"},
    {"attention", K::Choice, {"sdpa", "eager"}, 0, 0, "sdpa", "attention implementation", "--attention", "attention"},
    {"precision", K::Choice, {"fp32", "amp-bf16", "amp-fp16", "bf16", "fp16"}, 0, 0, "amp-bf16",
     "fp32 | amp-bf16 / amp-fp16 (fp32 master weights + autocast) | bf16 / fp16 (pure half: weights, gradients "
     "and optimizer state in 16 bits)",
     "--precision", "precision"},
    {"optimizer", K::Choice,
     {"adamw", "adamw-fused", "adamw-8bit", "paged-adamw-8bit", "paged-adamw", "adafactor", "sgd", "sgd-momentum",
      "none"},
     0, 0, "adamw",
     "adamw (foreach) | adamw-fused | adamw-8bit | paged-adamw-8bit / paged-adamw (state in managed memory) | "
     "adafactor | sgd | sgd-momentum | none (forward + backward only)",
     "--optimizer", "optimizer"},
    {"optimizer_foreach", K::Boolean, {}, 0, 0, "",
     "multi-tensor optimizer step (torch >= 2.0 on CUDA); off: one tensor at a time", "--optimizer-foreach", ""},
    {"grad_checkpointing", K::Boolean, {}, 0, 0, "false", "keep one input per block, recompute in backward",
     "--grad-checkpointing", "grad_checkpointing"},
    {"grad_accum", K::Integer, {}, 1, 1 << 16, "1",
     "micro-batches per optimizer step: gradients then live through every micro-batch's forward and backward",
     "--grad-accum", "grad_accum"},
    {"keep_gradients", K::Boolean, {}, 0, 0, "",
     "gradient buffers live between steps (zero_grad(set_to_none=False), torch < 2.0's default)",
     "--keep-gradients", ""},
    {"softmax_saves_input", K::Boolean, {}, 0, 0, "",
     "softmax and log_softmax keep their input for backward besides their result (torch <= 1.10)",
     "--softmax-saves-input", ""},
    {"hold_outputs", K::Boolean, {}, 0, 0, "true",
     "the loop keeps the model's outputs (logits) through backward, as `outputs = model(**batch)` does; "
     "HF Trainer and torchtune drop them first",
     "--hold-outputs", ""},
    {"fused_qkv", K::Boolean, {}, 0, 0, "false",
     "the framework's model runs q, k and v as one linear (litgpt): one input cast and one LoRA dropout for the "
     "three",
     "--fused-qkv", ""},
    {"untie_head", K::Boolean, {}, 0, 0, "false",
     "the framework gives the LM head a weight of its own where the checkpoint ties it (litgpt)", "--untie-head", ""},
    {"quantize_head", K::Boolean, {}, 0, 0, "false",
     "QLoRA stores the LM head in 4 bits too (Lightning's bitsandbytes plugin, litgpt); transformers keeps it in 16",
     "--quantize-head", ""},
    {"loss", K::Choice, {"cross-entropy", "chunked", "fused", "logits-sum"}, 0, 0, "cross-entropy",
     "cross-entropy (full logits up-cast to fp32, as transformers) | chunked (per chunk, compute dtype) | fused "
     "(fused linear cross-entropy) | logits-sum (benchmarks' logits.sum())",
     "--loss", "loss"},
    {"loss_chunk", K::Integer, {}, 1, 1 << 20, "128", "tokens per loss chunk (chunked, fused)", "--loss-chunk", ""},
    {"loss_chunks", K::Integer, {}, 1, 4096, "", "split the step's tokens into this many loss chunks instead",
     "--loss-chunks", ""},
    {"lora_rank", K::Integer, {}, 1, 4096, "16", "LoRA rank", "--lora-rank", "lora.r"},
    {"lora_dropout", K::Number, {}, 0, 0.99, "", "LoRA dropout (default from data/runtime.json)", "--lora-dropout",
     "lora.dropout"},
    {"lora_targets", K::TextList, {}, 0, 64, "",
     "module names to adapt, as PEFT's target_modules (a name or a dotted suffix; all-linear, the default: every "
     "linear but the head; name the head to adapt it)",
     "--lora-targets",
     "lora.targets"},
    {"lora_adapter_dtype", K::Choice, {"fp32", "base"}, 0, 0, "fp32",
     "fp32 (PEFT up-casts adapters) | base (torchtune, litgpt: the base's dtype)", "--lora-adapter-dtype", ""},
    {"dora", K::Boolean, {}, 0, 0, "false", "DoRA: magnitude vectors and the weight norm", "--dora", ""},
    {"qlora", K::Boolean, {}, 0, 0, "false", "plan QLoRA (4-bit NF4 base) instead of LoRA on a 16-bit base",
     "--qlora", "mode"},
    {"qlora_load", K::Choice, {"while-loading", "load-then-quantize"}, 0, 0, "while-loading",
     "quantize while loading (transformers + bitsandbytes) | load the 16-bit checkpoint first (a load phase)",
     "--qlora-load", ""},
    {"qlora_double_quant", K::Boolean, {}, 0, 0, "true",
     "QLoRA's block constants quantized again (bitsandbytes compress_statistics; litgpt's bnb.nf4-dq): "
     "0.516 byte per weight; off (litgpt's bnb.nf4): 0.5625",
     "--qlora-double-quant", ""},
    {"qlora_quantized_from", K::Choice, {"compute", "fp16"}, 0, 0, "compute",
     "dtype the 4-bit base was quantized from, which bitsandbytes dequantizes to: compute (the step's) | fp16 "
     "(Lightning's bitsandbytes plugin, litgpt): a bf16 step then casts each dequantized weight, two copies at once",
     "--qlora-quantized-from", ""},
    {"qlora_keeps_input", K::Boolean, {}, 0, 0, "false",
     "every 4-bit linear keeps its input for backward, as bitsandbytes before 0.43.2 did (litgpt's pinned 0.42); "
     "0.43.2 on keeps none",
     "--qlora-keeps-input", ""},
    {"epochs", K::Integer, {}, 1, 100000, "10", "epochs of the costed run", "--epochs", ""},
    {"global_batch", K::Integer, {}, 1, 1 << 24, "32", "global batch of the costed run", "--global-batch", ""},
    {"samples", K::Integer, {}, 1, 1e13, "50000", "training samples of the costed run", "--samples", ""},
};

const std::vector<OptionAlias> kAliases{
    {"no_autocast", "--no-autocast", "precision", "fp32", ""},
    {"autocast", "", "precision", "", "fp32"},
};

// Names an older release accepted, kept working.
std::string_view canonical_choice(std::string_view name, std::string_view value) {
  if (name == "optimizer" && value == "adam-8bit") return "adamw-8bit";
  return value;
}

[[noreturn]] void bad(std::string_view name, const std::string& why) {
  throw Error(ErrorKind::InvalidInput, std::string(name), why);
}

double parse_number(std::string_view name, std::string_view text) {
  double d = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(d))
    bad(name, fmt::format("'{}' is not a number", text));
  return d;
}

bool parse_bool(std::string_view name, std::string_view text) {
  if (text == "true" || text == "1" || text == "on") return true;
  if (text == "false" || text == "0" || text == "off") return false;
  bad(name, fmt::format("'{}' is not true or false", text));
}

std::int64_t as_int(const std::map<std::string, std::string>& v, const char* name, std::int64_t fallback) {
  auto it = v.find(name);
  return it == v.end() ? fallback : static_cast<std::int64_t>(std::llround(std::stod(it->second)));
}

}  // namespace

const std::vector<OptionSpec>& setup_options() { return kOptions; }
const std::vector<OptionAlias>& option_aliases() { return kAliases; }

const OptionSpec* find_option(std::string_view name) {
  for (const auto& o : kOptions)
    if (o.name == name) return &o;
  return nullptr;
}

std::string option_text(bool value) { return value ? "true" : "false"; }
std::string option_text(double value) { return fmt::format("{}", value); }

const std::string* SetupChoices::get(std::string_view name) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? nullptr : &it->second;
}

void SetupChoices::set(std::string_view name, std::string_view text) {
  const OptionSpec* o = find_option(name);
  if (!o) bad(name, "unknown training-setup option");
  std::string value(text);
  switch (o->kind) {
    case K::Integer:
    case K::Number: {
      const double d = parse_number(name, text);
      if (o->kind == K::Integer && std::floor(d) != d) bad(name, fmt::format("'{}' is not an integer", text));
      if (d < o->min || d > o->max) bad(name, fmt::format("must be between {} and {}, got {}", o->min, o->max, text));
      value = o->kind == K::Integer ? fmt::format("{}", static_cast<std::int64_t>(d)) : option_text(d);
      break;
    }
    case K::Boolean: value = option_text(parse_bool(name, text)); break;
    case K::Choice: {
      value = std::string(canonical_choice(name, text));
      // A framework may name its version: hf-trainer@4.15.
      const std::string_view head = name == "framework" ? std::string_view(value).substr(0, value.find('@'))
                                                        : std::string_view(value);
      if (std::find(o->choices.begin(), o->choices.end(), head) == o->choices.end())
        bad(name, fmt::format("'{}' is not one of {}", text, fmt::join(o->choices, ", ")));
      break;
    }
    case K::TextList: {
      std::vector<std::string> items;
      for (std::size_t start = 0; start <= value.size();) {
        const std::size_t comma = std::min(value.find(',', start), value.size());
        if (comma > start) items.push_back(value.substr(start, comma - start));
        start = comma + 1;
      }
      set_list(name, items);
      return;
    }
  }
  values_[std::string(name)] = value;
}

void SetupChoices::set_list(std::string_view name, const std::vector<std::string>& items) {
  const OptionSpec* o = find_option(name);
  if (!o || o->kind != K::TextList) bad(name, "not a list option");
  if (static_cast<double>(items.size()) > o->max) bad(name, fmt::format("at most {} names", o->max));
  std::string joined;
  for (const auto& i : items) {
    if (i.empty() || i.size() > 64 || i.find(',') != std::string::npos) bad(name, fmt::format("bad module name {:?}", i));
    joined += (joined.empty() ? "" : ",") + i;
  }
  values_[std::string(name)] = joined;
}

void SetupChoices::set_alias(std::string_view alias, bool value) {
  for (const auto& a : kAliases)
    if (a.name == alias) {
      const std::string_view v = value ? a.when_true : a.when_false;
      if (!v.empty() && !has(a.sets)) set(a.sets, v);
      return;
    }
  bad(alias, "unknown training-setup option");
}

namespace {

Setup setup_from(const std::map<std::string, std::string>& v, const Runtime& rt) {
  Setup s;
  auto text = [&](const char* name) -> const std::string* {
    auto it = v.find(name);
    return it == v.end() ? nullptr : &it->second;
  };
  auto flag = [&](const char* name, bool fallback) {
    const auto* t = text(name);
    return t ? *t == "true" : fallback;
  };
  s.batch = as_int(v, "batch", s.batch);
  if (const auto* t = text("attention")) s.attention = *t == "eager" ? AttentionImpl::Eager : AttentionImpl::SDPA;
  if (const auto* t = text("precision")) {
    for (Precision p : {Precision::Fp32, Precision::AmpBf16, Precision::AmpFp16, Precision::Bf16, Precision::Fp16})
      if (*t == precision_name(p)) s.precision = p;
  }
  if (const auto* t = text("optimizer")) {
    for (Optimizer o : {Optimizer::AdamW, Optimizer::AdamWFused, Optimizer::AdamW8bit, Optimizer::PagedAdamW8bit,
                        Optimizer::PagedAdamW, Optimizer::Adafactor, Optimizer::SGD, Optimizer::SGDMomentum,
                        Optimizer::None})
      if (*t == optimizer_name(o)) s.optimizer = o;
  }
  s.optimizer_foreach = flag("optimizer_foreach", s.optimizer_foreach);
  s.grad_checkpointing = flag("grad_checkpointing", s.grad_checkpointing);
  s.keep_gradients = flag("keep_gradients", s.keep_gradients);
  s.hold_outputs = flag("hold_outputs", s.hold_outputs);
  s.softmax_saves_input = flag("softmax_saves_input", s.softmax_saves_input);
  s.untie_head = flag("untie_head", s.untie_head);
  s.fused_qkv = flag("fused_qkv", s.fused_qkv);
  s.quantize_head = flag("quantize_head", s.quantize_head);
  // Accumulating gradients means the buffers exist before every micro-batch but the first.
  if (as_int(v, "grad_accum", 1) > 1) s.keep_gradients = true;
  if (const auto* t = text("loss")) {
    for (Loss l : {Loss::CrossEntropy, Loss::Chunked, Loss::Fused, Loss::LogitsSum})
      if (*t == loss_name(l)) s.loss = l;
  }
  s.loss_chunk = as_int(v, "loss_chunk", s.loss_chunk);
  s.loss_chunks = as_int(v, "loss_chunks", 0);
  s.lora_rank = as_int(v, "lora_rank", s.lora_rank);
  s.lora_dropout = text("lora_dropout") ? std::stod(*text("lora_dropout")) : rt.lora_default_dropout;
  if (const auto* t = text("lora_adapter_dtype")) s.lora_fp32_adapters = *t == "fp32";
  s.dora = flag("dora", false);
  if (const auto* t = text("qlora_load"))
    s.qlora_load = *t == "load-then-quantize" ? QuantizedLoad::LoadThenQuantize : QuantizedLoad::WhileLoading;
  s.qlora_double_quant = flag("qlora_double_quant", s.qlora_double_quant);
  s.qlora_keeps_input = flag("qlora_keeps_input", s.qlora_keeps_input);
  if (const auto* t = text("qlora_quantized_from")) s.qlora_quantized_from_fp16 = *t == "fp16";
  return s;
}

}  // namespace

PlanOptions plan_options(const SetupChoices& choices, const Runtime& runtime) {
  const auto& given = choices.values();
  const bool qlora = choices.get("qlora") && *choices.get("qlora") == "true";
  const Preset* preset = nullptr;
  if (const auto* f = choices.get("framework")) preset = &find_preset(*f);

  // Preset, then the era's defaults, then what the user typed. QLoRA-only preset settings (litgpt's
  // paged optimizer) apply to the QLoRA column alone.
  auto effective = [&](bool for_qlora) {
    std::map<std::string, std::string> v;
    if (preset) {
      for (const auto& [k, val] : preset->settings) v[k] = val;
      if (for_qlora)
        for (const auto& [k, val] : preset->qlora_settings) v[k] = val;
    }
    const std::string era_name = choices.get("era") ? *choices.get("era") : preset ? preset->era : "";
    if (!era_name.empty()) {
      const Era& era = find_era(era_name);
      v.emplace("keep_gradients", option_text(era.keep_gradients));
      v.emplace("optimizer_foreach", option_text(era.optimizer_foreach));
      v.emplace("softmax_saves_input", option_text(era.softmax_saves_input));
    }
    for (const auto& [k, val] : given) v[k] = val;
    return v;
  };

  PlanOptions o;
  o.runtime = runtime;
  o.runtime_set = true;
  const std::string era_name = choices.get("era") ? *choices.get("era") : preset ? preset->era : "";
  if (!era_name.empty()) o.runtime.cuda_context_bytes = find_era(era_name).cuda_context_bytes;

  const auto full_values = effective(false);
  o.full = setup_from(full_values, o.runtime);
  o.full.mode = Mode::Full;
  o.lora = setup_from(effective(qlora), o.runtime);
  o.lora.mode = qlora ? Mode::QLoRA : Mode::LoRA;
  // Targets in the framework's own vocabulary (litgpt's "query", "mlp") become the family's module names.
  if (const auto* t = choices.get("lora_targets")) {
    std::vector<std::string> targets;
    for (std::size_t start = 0; start <= t->size();) {
      const std::size_t comma = std::min(t->find(',', start), t->size());
      if (comma > start) {
        const std::string name = t->substr(start, comma - start);
        const std::vector<std::string>* modules = nullptr;
        if (preset) {
          auto alias = preset->lora_targets.find(name);
          if (alias != preset->lora_targets.end()) modules = &alias->second;
        }
        if (modules)
          targets.insert(targets.end(), modules->begin(), modules->end());
        else
          targets.push_back(name);
      }
      start = comma + 1;
    }
    // PEFT's "all-linear": every linear but the output layer, which is the planner's default.
    if (targets == std::vector<std::string>{"all-linear"}) targets.clear();
    o.full.lora_targets = o.lora.lora_targets = targets;
  }
  o.run = {as_int(full_values, "epochs", 10), as_int(full_values, "global_batch", 32),
           as_int(full_values, "samples", 50000)};
  validate(o);
  return o;
}

}  // namespace neurarch::plan
