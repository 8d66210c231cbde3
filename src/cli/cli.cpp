#include "cli/cli.hpp"

#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/lint_command.hpp"
#include "cli/serve_command.hpp"
#include "cli/trace_command.hpp"
#include "cli/track_command.hpp"
#include "cli/validate_command.hpp"
#include "families/family.hpp"
#include "families/listing.hpp"

namespace neurarch::cli {
namespace {

void list_architectures(std::ostream& out) {
  for (const auto& arch : families::supported_architectures()) {
    out << arch.family << "  (" << arch.reference << ")\n    model_type: ";
    for (std::size_t i = 0; i < arch.model_types.size(); ++i) out << (i ? ", " : "") << arch.model_types[i];
    out << "\n    classes:    ";
    for (std::size_t i = 0; i < arch.classes.size(); ++i) out << (i ? ", " : "") << arch.classes[i];
    out << "\n";
  }
}

// The main app's own flags (the trace's and the listings) belong to no subcommand: `neurarch-trace
// --plan lint gpt2` or `neurarch-trace gpt2 serve` is a mistake, not a lint or a server.
std::vector<std::string> main_flags_given(const CLI::App& app) {
  std::vector<std::string> given;
  for (const CLI::Option* o : app.get_options())
    if (o->count() > 0 && o != app.get_help_ptr()) {
      if (o->nonpositional())
        given.push_back(o->get_name());
      else
        for (const auto& value : o->results()) given.push_back(value);
    }
  return given;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err, std::istream& in) {
  CLI::App app{"neurarch-trace: a Hugging Face model's layer graph, tensors and checks, from its config.json alone",
               "neurarch-trace"};
  app.require_subcommand(0, 1);
  bool list_types = false;
  bool list_archs = false;
  app.add_flag("--list-model-types", list_types, "print every supported model_type and exit");
  app.add_flag("--list-architectures", list_archs,
               "print every supported architecture family with the model_types and classes it accepts, and exit");
  const Command trace = add_trace_command(app, in);
  const std::vector<Command> commands = {trace,
                                         add_lint_command(app),
                                         add_serve_command(app),
                                         add_track_command(app),
                                         add_changes_command(app),
                                         add_validate_command(app)};
  // Set after the subcommands are added, which would otherwise inherit it.
  app.footer("Without a subcommand, neurarch-trace MODEL traces MODEL (the same as neurarch-trace trace MODEL).\n"
             "neurarch-trace SUBCOMMAND --help describes each subcommand.");
  try {
    app.parse(argc, argv);
    for (const Command& command : commands)
      if (command.app->parsed()) {
        if (const auto given = main_flags_given(app); !given.empty()) throw CLI::ExtrasError(given);
        return command.run(out, err);
      }
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  if (list_types) {
    for (const auto& t : families::supported_model_types()) out << t << "\n";
    return 0;
  }
  if (list_archs) {
    list_architectures(out);
    return 0;
  }
  return trace.run(out, err);
}

}  // namespace neurarch::cli
