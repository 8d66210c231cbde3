#include "cli/cli.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/error.hpp"
#include "families/family.hpp"
#include "families/listing.hpp"
#include "hub/hub.hpp"
#include "cli/lint_command.hpp"
#include "cli/output.hpp"
#include "hub/cache.hpp"
#include "cli/track_command.hpp"
#include "cli/validate_command.hpp"
#include "cli/serve_command.hpp"
#include "cli/share_client.hpp"
#include "cli/trace_request.hpp"
#include "plan/options.hpp"
#include "render/render.hpp"
#include "pipeline/trace.hpp"

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
  std::optional<std::int64_t> target_seq;
  std::string checkpoint;
  bool no_checkpoint = false;
  bool tensors = false;
  bool offline = false;
  std::string output;
  bool plan = false;
  std::map<std::string, std::string> setup;  ///< training-setup options as typed, by table name
  std::map<std::string, std::vector<std::string>> setup_lists;
  std::map<std::string, bool> aliases;  ///< old flags (--no-autocast) that set a table option
  std::string cards_file;
  std::string runtime_file;
  std::string card;
  bool share = false;
  std::string server;
};

plan::SetupChoices setup_choices(const Args& a) {
  plan::SetupChoices c;
  for (const auto& [name, text] : a.setup) c.set(name, text);
  for (const auto& [name, items] : a.setup_lists) c.set_list(name, items);
  for (const auto& [alias, value] : a.aliases) c.set_alias(alias, value);
  return c;
}

// The options a server needs to trace the same report (POST /api/v1/share's keys): the table's
// names with JSON-typed values.
nlohmann::json share_options(const Args& a) {
  nlohmann::json o = nlohmann::json::object();
  const plan::SetupChoices choices = setup_choices(a);
  for (const auto& [name, text] : choices.values()) {
    const auto* spec = plan::find_option(name);
    switch (spec->kind) {
      case plan::OptionKind::Integer: o[name] = std::stoll(text); break;
      case plan::OptionKind::Number: o[name] = std::stod(text); break;
      case plan::OptionKind::Boolean: o[name] = text == "true"; break;
      case plan::OptionKind::Choice: o[name] = text; break;
      case plan::OptionKind::TextList: {
        auto list = nlohmann::json::array();
        for (std::size_t start = 0; start <= text.size();) {
          const std::size_t comma = std::min(text.find(',', start), text.size());
          if (comma > start) list.push_back(text.substr(start, comma - start));
          start = comma + 1;
        }
        o[name] = list;
        break;
      }
    }
  }
  if (!a.card.empty()) o["card"] = a.card;
  if (a.seq) o["seq"] = *a.seq;
  if (a.image_size) o["image_size"] = *a.image_size;
  if (!a.class_name.empty()) o["class"] = a.class_name;
  return o;
}

// The command line's flags as the request the Python binding fills the same way.
TraceRequest trace_request(const Args& a) {
  TraceRequest t{a.class_name, a.revision, a.seq, a.image_size, a.target_seq, a.checkpoint, a.no_checkpoint, a.offline, {}};
  if (a.plan) t.plan = PlanRequest{setup_choices(a), a.cards_file, a.runtime_file, a.card};
  return t;
}

// Every training-setup option of plan/options.hpp's table as a flag; booleans are flags, and those
// whose default comes from the era also get a --no- form.
void add_setup_options(CLI::App& app, Args& a, const std::string& group) {
  for (const auto& spec : plan::setup_options()) {
    const std::string name(spec.name), flag(spec.cli);
    std::string help(spec.help);
    if (!spec.default_text.empty()) help += fmt::format(" (default {})", spec.default_text);
    switch (spec.kind) {
      case plan::OptionKind::Boolean:
        app.add_flag_callback(flag, [&a, name] { a.setup[name] = "true"; }, help)->group(group);
        if (spec.default_text.empty())
          app.add_flag_callback("--no-" + flag.substr(2), [&a, name] { a.setup[name] = "false"; },
                                "the opposite of " + flag)
              ->group(group);
        break;
      case plan::OptionKind::TextList:
        app.add_option_function<std::vector<std::string>>(
               flag, [&a, name](const std::vector<std::string>& v) { a.setup_lists[name] = v; }, help)
            ->delimiter(',')
            ->group(group);
        break;
      default:
        app.add_option_function<std::string>(flag, [&a, name](const std::string& v) { a.setup[name] = v; }, help)
            ->group(group);
    }
  }
  for (const auto& alias : plan::option_aliases()) {
    if (alias.cli.empty()) continue;
    const std::string name(alias.name);
    app.add_flag_callback(std::string(alias.cli), [&a, name] { a.aliases[name] = true; },
                          fmt::format("the same as --{} {}", alias.sets, alias.when_true))
        ->group(group);
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
  if (argc > 1 && std::string_view(argv[1]) == "serve") return run_serve_command(argc - 1, argv + 1, out, err);

  // change-tracker subcommands (track, changes)
  if (argc > 1 && std::string_view(argv[1]) == "track") return run_track_command(argc, argv, out, err);
  if (argc > 1 && std::string_view(argv[1]) == "changes") return run_changes_command(argc, argv, out, err);

  // calibration subcommands (validate)
  if (argc > 1 && std::string_view(argv[1]) == "validate") return run_validate(argc, argv, out, err);

  CLI::App app{"neurarch-trace: a Hugging Face model's layer graph, tensors and checks, from its config.json alone",
               "neurarch-trace"};
  Args a;
  bool list_types = false;
  bool list_architectures = false;
  app.add_flag("--list-model-types", list_types, "print every supported model_type and exit");
  app.add_flag("--list-architectures", list_architectures,
               "print every supported architecture family with the model_types and classes it accepts, and exit");
  app.add_option("model", a.model,
                 "org/name[@revision] (local HF cache, then the bundled catalogue), a config.json or model folder, "
                 "or - for stdin");
  app.add_option("--format,-f", a.format, "text | json | markdown | svg (the architecture diagram)")
      ->check(CLI::IsMember({"text", "json", "markdown", "svg"}));
  app.add_option("--class", a.class_name, "model class to build (default: architectures[0], else the base class)");
  app.add_option("--revision", a.revision, "branch, tag or commit (the local Hugging Face cache first, then the Hub)");
  app.add_option("--seq", a.seq, "sequence length for text models (default: max positions, capped at 2048)");
  app.add_option("--image-size", a.image_size, "image side in pixels for vision models (default: the config's)");
  app.add_option("--target-seq", a.target_seq,
                 "decoder tokens of encoder-decoders (default: the source length, within the decoder's positions)");
  app.add_option("--checkpoint", a.checkpoint, "safetensors file or folder to compare against (headers only)");
  app.add_flag("--no-checkpoint", a.no_checkpoint, "do not read checkpoint headers even when present");
  app.add_flag("--tensors", a.tensors, "list every tensor in the text report");
  app.add_flag("--offline", a.offline, "never use the network");
  app.add_option("--output,-o", a.output, "write the report to this file (atomically) instead of stdout");

  const std::string planning = "Training plan";
  app.add_flag("--plan", a.plan, "add the training plan: memory, card fit, split, cost")->group(planning);
  add_setup_options(app, a, planning);
  app.add_option("--card", a.card, "plan for this card only")->group(planning);
  app.add_option("--cards", a.cards_file, "card catalogue JSON (default: the bundled data/cards.json)")->group(planning);
  app.add_option("--runtime", a.runtime_file, "runtime constants JSON (default: data/runtime.json)")->group(planning);
  app.add_flag("--share", a.share, "publish the report on a neurarch server and print its permanent link")->group("Sharing");
  app.add_option("--server", a.server, "server URL for --share (default: $NEURARCH_SERVER)")->group("Sharing");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  if (list_types) {
    for (const auto& t : families::supported_model_types()) out << t << "\n";
    return 0;
  }
  if (list_architectures) {
    for (const auto& arch : families::supported_architectures()) {
      out << arch.family << "  (" << arch.reference << ")\n    model_type: ";
      for (std::size_t i = 0; i < arch.model_types.size(); ++i) out << (i ? ", " : "") << arch.model_types[i];
      out << "\n    classes:    ";
      for (std::size_t i = 0; i < arch.classes.size(); ++i) out << (i ? ", " : "") << arch.classes[i];
      out << "\n";
    }
    return 0;
  }
  if (a.model.empty()) {
    err << "neurarch-trace: error: MODEL is required (an org/name id, a config.json or folder, or -)\n"
        << app.help();
    return 2;
  }

  try {
    const TraceRequest request = trace_request(a);
    auto model = resolve_model(a.model, request, in);
    if (a.share) {
      const std::string server = share_server(a.server);
      if (server.empty()) throw Error(ErrorKind::InvalidInput, "--share", "needs --server URL or $NEURARCH_SERVER");
      if (!a.cards_file.empty() || !a.runtime_file.empty())
        throw Error(ErrorKind::InvalidInput, "--share", "the server plans with its own cards and runtime; drop --cards/--runtime");
      // The server traces the config itself, so a link never shows figures a client typed in.
      const auto config = nlohmann::json::parse(model.config_text, nullptr, false);
      if (config.is_discarded() || !config.is_object())
        throw Error(ErrorKind::InvalidInput, model.config_origin, "not a JSON object");
      const bool named = model.source == "hf-cache" || model.source == "catalogue" || model.source == "hub";
      return share_report(server, config, named ? model.id : "shared config", share_options(a), out, err);
    }
    auto r = trace(std::move(model), request);

    std::string rendered = a.format == "json"       ? render::json(r)
                           : a.format == "markdown" ? render::markdown(r)
                           : a.format == "svg"      ? render::diagram(r)
                                                    : render::text(r, {a.tensors});
    if (a.output.empty())
      out << rendered << std::flush;
    else
      hub::write_atomically(a.output, rendered);
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
