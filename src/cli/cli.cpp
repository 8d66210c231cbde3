#include "cli/cli.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/family.hpp"
#include "hub/hub.hpp"
#include "cli/lint_command.hpp"
#include "cli/trace_request.hpp"
#include "render/render.hpp"
#include "report/trace.hpp"

namespace neurarch::cli {
namespace {
namespace fs = std::filesystem;

struct Args {
  std::string model;
  std::string format = "text";
  std::string class_name;
  std::string revision;
  std::optional<std::int64_t> seq;
  std::optional<std::int64_t> image_size;
  std::string checkpoint;
  bool no_checkpoint = false;
  bool tensors = false;
  bool offline = false;
  std::string output;
  bool plan = false;
  std::int64_t batch = 1;
  std::string attention = "sdpa";
  std::string optimizer = "adamw";
  bool grad_checkpointing = false;
  std::int64_t lora_rank = 16;
  std::optional<double> lora_dropout;
  std::vector<std::string> lora_targets;
  bool qlora = false;
  bool no_autocast = false;
  std::string cards_file;
  std::string runtime_file;
  std::string card;
  std::int64_t epochs = 10, global_batch = 32, samples = 50000;
};

// The command line's flags as the request the Python binding fills the same way.
TraceRequest trace_request(const Args& a) {
  TraceRequest t{a.class_name, a.revision, a.seq, a.image_size, a.checkpoint, a.no_checkpoint, a.offline, {}};
  if (a.plan)
    t.plan = PlanRequest{a.batch,        a.attention, a.optimizer, a.grad_checkpointing, a.lora_rank,
                         a.lora_dropout, a.lora_targets, a.qlora,  a.no_autocast,        a.cards_file,
                         a.runtime_file, a.card,      a.epochs,    a.global_batch,       a.samples};
  return t;
}

int exit_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidInput: return 2;
    case ErrorKind::NotFound: return 3;
    case ErrorKind::Unsupported: return 4;
    case ErrorKind::Io: return 5;
  }
  return 1;
}

// Writes beside the target and renames, so a reader never sees half a report.
void write_atomically(const fs::path& target, const std::string& content) {
  fs::path tmp = target;
  tmp += ".partial";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw Error(ErrorKind::Io, target.string(), "cannot open for writing");
    f << content;
    f.flush();
    if (!f) {
      std::error_code ignored;
      fs::remove(tmp, ignored);
      throw Error(ErrorKind::Io, target.string(), "write failed");
    }
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw Error(ErrorKind::Io, target.string(), "cannot rename the finished file into place");
  }
}

}  // namespace

namespace {
// `neurarch-trace lint MODEL...`: only the verifier, over many models, for CI gates.
int run_lint(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"neurarch-trace lint: run the verifier over models; non-zero exit at or above --fail-on",
               "neurarch-trace lint"};
  std::vector<std::string> models;
  std::string fail_on = "error", format = "text";
  std::optional<std::int64_t> seq;
  bool lora = false;
  app.add_option("models", models, "model ids, config.json files or folders")->required();
  app.add_option("--fail-on", fail_on, "error | warn | info")->check(CLI::IsMember({"error", "warn", "info"}));
  app.add_option("--format,-f", format, "text | json")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--seq", seq, "the sequence length you plan to train at");
  app.add_flag("--lora", lora, "you plan LoRA fine-tuning");
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  return run_lint_command(models, fail_on, format, out, err, {seq, lora});
}
}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err, std::istream& in) {
  if (argc > 1 && std::string_view(argv[1]) == "lint") return run_lint(argc, argv, out, err);

  // server subcommands (serve)

  // change-tracker subcommands (track, changes)

  // calibration subcommands (validate)

  CLI::App app{"neurarch-trace: a Hugging Face model's layer graph, tensors and checks, from its config.json alone",
               "neurarch-trace"};
  Args a;
  bool list_types = false;
  app.add_flag("--list-model-types", list_types, "print every supported model_type and exit");
  app.add_option("model", a.model,
                 "org/name[@revision] (local HF cache, then the bundled catalogue), a config.json or model folder, "
                 "or - for stdin");
  app.add_option("--format,-f", a.format, "text | json | markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  app.add_option("--class", a.class_name, "model class to build (default: architectures[0], else the base class)");
  app.add_option("--revision", a.revision, "branch, tag or commit (the local Hugging Face cache first, then the Hub)");
  app.add_option("--seq", a.seq, "sequence length for text models (default: max positions, capped at 2048)");
  app.add_option("--image-size", a.image_size, "image side in pixels for vision models (default: the config's)");
  app.add_option("--checkpoint", a.checkpoint, "safetensors file or folder to compare against (headers only)");
  app.add_flag("--no-checkpoint", a.no_checkpoint, "do not read checkpoint headers even when present");
  app.add_flag("--tensors", a.tensors, "list every tensor in the text report");
  app.add_flag("--offline", a.offline, "never use the network");
  app.add_option("--output,-o", a.output, "write the report to this file (atomically) instead of stdout");

  auto* planning = "Training plan";
  app.add_flag("--plan", a.plan, "add the training plan: memory, card fit, split, cost")->group(planning);
  app.add_option("--batch", a.batch, "batch size of the memory breakdown (default 1)")->group(planning);
  app.add_option("--attention", a.attention, "sdpa (default) | eager")
      ->check(CLI::IsMember({"sdpa", "eager"}))
      ->group(planning);
  app.add_option("--optimizer", a.optimizer, "adamw (default, multi-tensor) | adamw-fused | sgd-momentum | adam-8bit")
      ->check(CLI::IsMember({"adamw", "adamw-fused", "sgd-momentum", "adam-8bit"}))
      ->group(planning);
  app.add_flag("--grad-checkpointing", a.grad_checkpointing, "keep one input per block, recompute in backward")
      ->group(planning);
  app.add_option("--lora-rank", a.lora_rank, "LoRA rank (default 16)")->group(planning);
  app.add_option("--lora-dropout", a.lora_dropout, "LoRA dropout (default from data/runtime.json)")->group(planning);
  app.add_option("--lora-targets", a.lora_targets, "module names to adapt (default: every linear but the head)")
      ->delimiter(',')
      ->group(planning);
  app.add_flag("--qlora", a.qlora, "plan QLoRA (4-bit NF4 base) instead of LoRA on a bf16 base")->group(planning);
  app.add_flag("--no-autocast", a.no_autocast, "plain fp32 training instead of bf16 autocast")->group(planning);
  app.add_option("--card", a.card, "plan for this card only")->group(planning);
  app.add_option("--cards", a.cards_file, "card catalogue JSON (default: the bundled data/cards.json)")->group(planning);
  app.add_option("--runtime", a.runtime_file, "runtime constants JSON (default: data/runtime.json)")->group(planning);
  app.add_option("--epochs", a.epochs, "epochs of the costed run (default 10)")->group(planning);
  app.add_option("--global-batch", a.global_batch, "global batch of the costed run (default 32)")->group(planning);
  app.add_option("--samples", a.samples, "training samples of the costed run (default 50000)")->group(planning);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  if (list_types) {
    for (const auto& t : families::supported_model_types()) out << t << "\n";
    return 0;
  }
  if (a.model.empty()) {
    err << "neurarch-trace: error: MODEL is required (an org/name id, a config.json or folder, or -)\n"
        << app.help();
    return 2;
  }

  try {
    auto r = trace(a.model, trace_request(a), in);

    std::string rendered = a.format == "json"       ? render::json(r)
                           : a.format == "markdown" ? render::markdown(r)
                                                    : render::text(r, {a.tensors});
    if (a.output.empty())
      out << rendered << std::flush;
    else
      write_atomically(a.output, rendered);
    return 0;
  } catch (const Error& e) {
    err << "neurarch-trace: error: " << e.what() << "\n";
    return exit_code(e.kind());
  } catch (const std::exception& e) {
    err << "neurarch-trace: internal error: " << e.what() << "\n";
    return 70;
  }
}

}  // namespace neurarch::cli
