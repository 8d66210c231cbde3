#include "cli/trace_command.hpp"

#include <algorithm>
#include <istream>
#include <map>
#include <memory>
#include <optional>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli/output.hpp"
#include "cli/share_client.hpp"
#include "cli/trace_request.hpp"
#include "core/error.hpp"
#include "hub/cache.hpp"
#include "plan/options.hpp"
#include "render/render.hpp"

namespace neurarch::cli {
namespace {

struct TraceArgs {
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

plan::SetupChoices setup_choices(const TraceArgs& a) {
  plan::SetupChoices c;
  for (const auto& [name, text] : a.setup) c.set(name, text);
  for (const auto& [name, items] : a.setup_lists) c.set_list(name, items);
  for (const auto& [alias, value] : a.aliases) c.set_alias(alias, value);
  return c;
}

// The options a server needs to trace the same report (POST /api/v1/share's keys): the table's
// names with JSON-typed values.
nlohmann::json share_options(const TraceArgs& a) {
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
TraceRequest trace_request(const TraceArgs& a) {
  TraceRequest t{a.class_name, a.revision, a.seq, a.image_size, a.target_seq, a.checkpoint, a.no_checkpoint, a.offline, {}};
  if (a.plan) t.plan = PlanRequest{setup_choices(a), a.cards_file, a.runtime_file, a.card};
  return t;
}

// Every training-setup option of plan/options.hpp's table as a flag; booleans are flags with a --no- form,
// since a framework preset or the era may have turned them on (torchtune's checkpointing) or off.
void add_setup_options(CLI::App& app, TraceArgs& a, const std::string& group) {
  for (const auto& spec : plan::setup_options()) {
    const std::string name(spec.name), flag(spec.cli);
    std::string help(spec.help);
    if (!spec.default_text.empty()) help += fmt::format(" (default {})", spec.default_text);
    switch (spec.kind) {
      case plan::OptionKind::Boolean:
        app.add_flag_callback(flag, [&a, name] { a.setup[name] = "true"; }, help)->group(group);
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

// The trace's positional MODEL and flags, on the main app (where the trace is the default) and on `trace`.
void add_trace_options(CLI::App& cmd, TraceArgs& a) {
  cmd.add_option("model", a.model,
                 "org/name[@revision] (local HF cache, then the bundled catalogue), a config.json or model folder, "
                 "or - for stdin");
  cmd.add_option("--format,-f", a.format, "text | json | markdown | svg (the architecture diagram)")
      ->check(CLI::IsMember({"text", "json", "markdown", "svg"}));
  cmd.add_option("--class", a.class_name, "model class to build (default: architectures[0], else the base class)");
  cmd.add_option("--revision", a.revision, "branch, tag or commit (the local Hugging Face cache first, then the Hub)");
  cmd.add_option("--seq", a.seq, "sequence length for text models (default: max positions, capped at 2048)");
  cmd.add_option("--image-size", a.image_size, "image side in pixels for vision models (default: the config's)");
  cmd.add_option("--target-seq", a.target_seq,
                 "decoder tokens of encoder-decoders (default: the source length, within the decoder's positions)");
  cmd.add_option("--checkpoint", a.checkpoint, "safetensors file or folder to compare against (headers only)");
  cmd.add_flag("--no-checkpoint", a.no_checkpoint, "do not read checkpoint headers even when present");
  cmd.add_flag("--tensors", a.tensors, "list every tensor in the text report");
  cmd.add_flag("--offline", a.offline, "never use the network");
  cmd.add_option("--output,-o", a.output, "write the report to this file (atomically) instead of stdout");

  const std::string planning = "Training plan";
  cmd.add_flag("--plan", a.plan, "add the training plan: memory, card fit, split, cost")->group(planning);
  add_setup_options(cmd, a, planning);
  cmd.add_option("--card", a.card, "plan for this card only")->group(planning);
  cmd.add_option("--cards", a.cards_file, "card catalogue JSON (default: the bundled data/cards.json)")->group(planning);
  cmd.add_option("--runtime", a.runtime_file, "runtime constants JSON (default: data/runtime.json)")->group(planning);
  cmd.add_flag("--share", a.share, "publish the report on a neurarch server and print its permanent link")->group("Sharing");
  cmd.add_option("--server", a.server, "server URL for --share (default: $NEURARCH_SERVER)")->group("Sharing");
}

// `app` is the main app: its help is the trace subcommand's when that was named.
int run_trace(const TraceArgs& a, const CLI::App& app, std::ostream& out, std::ostream& err, std::istream& in) {
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

}  // namespace

Command add_trace_command(CLI::App& app, std::istream& in) {
  auto a = std::make_shared<TraceArgs>();
  add_trace_options(app, *a);
  auto* sub = app.add_subcommand("trace", "the report of one model (the default: `neurarch-trace MODEL` is the same)");
  add_trace_options(*sub, *a);
  return {sub, [a, &app, &in](std::ostream& out, std::ostream& err) { return run_trace(*a, app, out, err, in); }};
}

}  // namespace neurarch::cli
