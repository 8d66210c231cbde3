#include "cli/track_command.hpp"

#include <filesystem>
#include <fstream>
#include <ostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "track/git_source.hpp"
#include "track/hub_source.hpp"
#include "track/store.hpp"
#include "cli/output.hpp"
#include "hub/cache.hpp"
#include "track/tracker.hpp"
#include "track/views.hpp"

namespace neurarch::cli {
namespace {
namespace fs = std::filesystem;


bool looks_like_hub_id(const std::string& s) {
  const auto slash = s.find('/');
  return slash != std::string::npos && slash > 0 && slash + 1 < s.size() && s.find('/', slash + 1) == std::string::npos;
}

template <typename Body>
int guarded(std::ostream& err, const char* command, Body body) {
  try {
    return body();
  } catch (const Error& e) {
    err << "neurarch-trace " << command << ": error: " << e.what() << "\n";
    return exit_code(e.kind());
  } catch (const std::exception& e) {
    err << "neurarch-trace " << command << ": internal error: " << e.what() << "\n";
    return 70;
  }
}

}  // namespace

int run_track_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"neurarch-trace track: follow a model repository's revisions and classify what each one changed",
               "neurarch-trace track"};
  std::string repo, id, ref = "HEAD", db_path, format = "text", progress = "auto";
  app.add_option("repo", repo, "a local clone (GIT_LFS_SKIP_SMUDGE=1 git clone ...) or org/name on the Hub")->required();
  app.add_option("--id", id, "org/name to store the history under (default: from the clone's origin URL)");
  app.add_option("--ref", ref, "branch, tag or commit to follow (default HEAD; on the Hub: main)");
  app.add_option("--db", db_path, "change database (default: $NEURARCH_TRACK_DB or ~/.local/share/neurarch/changes.db)");
  app.add_option("--format,-f", format, "text | json")->check(CLI::IsMember({"text", "json"}));
  app.add_option("--progress", progress, "auto (on a terminal) | always | never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  return guarded(err, "track", [&] {
    std::unique_ptr<track::RevisionSource> source;
    std::string kind;
    if (fs::exists(repo)) {
      auto git = std::make_unique<track::GitSource>(repo, ref);
      if (id.empty()) id = git->hub_id();
      if (id.empty())
        throw Error(ErrorKind::InvalidInput, repo, "its origin is not a Hugging Face URL; name the model with --id org/name");
      source = std::move(git);
      kind = "git";
    } else if (looks_like_hub_id(repo)) {
      if (id.empty()) id = repo;
      source = std::make_unique<track::HubSource>(repo, ref == "HEAD" ? "main" : ref, track::HubSourceOptions{});
      kind = "hub";
    } else {
      throw Error(ErrorKind::NotFound, repo, "neither a local clone nor an org/name on the Hub");
    }
    track::Store store(db_path.empty() ? track::default_store_path() : db_path);
    std::ostream* bar_stream = progress == "always" ? &err : progress == "never" ? nullptr : track::terminal_progress_stream();
    track::ProgressBar bar(bar_stream);
    track::TrackOptions options;
    options.repo = id;
    options.source_kind = kind;
    options.progress = &bar;
    const auto result = track::track(*source, store, options);
    bar.clear();
    if (format == "json") {
      nlohmann::json problems = nlohmann::json::array();
      for (const auto& p : result.problems)
        problems.push_back({{"commit", p.commit}, {"file", p.problem.file}, {"message", p.problem.message}});
      out << nlohmann::json{{"model", result.repo},         {"tip", result.tip},          {"new_revisions", result.new_revisions},
                            {"changes", result.changes},    {"breaking", result.breaking}, {"problems", problems}}
                 .dump(2)
          << "\n";
    } else {
      out << fmt::format("{}: {} new revision{} up to {}, {} change{}, {} breaking\n", result.repo, result.new_revisions,
                         result.new_revisions == 1 ? "" : "s", result.tip.substr(0, 12), result.changes,
                         result.changes == 1 ? "" : "s", result.breaking);
      for (const auto& p : result.problems)
        out << fmt::format("  problem at {}: {}{}\n", p.commit.substr(0, 12), p.problem.file.empty() ? "" : p.problem.file + ": ",
                           p.problem.message);
    }
    out << std::flush;
    return 0;
  });
}

int run_changes_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"neurarch-trace changes: a tracked model's change history, or its OSV advisories", "neurarch-trace changes"};
  std::string id, db_path, format = "text", osv_dir;
  bool breaking_only = false;
  app.add_option("model", id, "org/name as tracked")->required();
  app.add_option("--db", db_path, "change database (default: $NEURARCH_TRACK_DB or ~/.local/share/neurarch/changes.db)");
  app.add_option("--format,-f", format, "text | json | markdown")->check(CLI::IsMember({"text", "json", "markdown"}));
  app.add_option("--osv", osv_dir, "write one OSV advisory JSON per breaking change into this folder");
  app.add_flag("--breaking-only", breaking_only, "list breaking changes only");
  try {
    app.parse(argc - 1, argv + 1);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  return guarded(err, "changes", [&] {
    const std::string path = db_path.empty() ? track::default_store_path() : db_path;
    if (path != ":memory:" && !fs::exists(path))
      throw Error(ErrorKind::NotFound, path, "no change database here yet; run neurarch-trace track first");
    track::Store store(path);
    const auto model = store.model(id);
    if (!model) throw Error(ErrorKind::NotFound, id, "not tracked in " + path + "; run neurarch-trace track first");
    if (!osv_dir.empty()) {
      std::error_code ec;
      fs::create_directories(osv_dir, ec);
      if (ec) throw Error(ErrorKind::Io, osv_dir, "cannot create the folder: " + ec.message());
      const auto advisories = store.advisories_of(model->id);
      for (const auto& [advisory_id, text] : advisories)
        hub::write_atomically(fs::path(osv_dir) / (advisory_id + ".json"), nlohmann::json::parse(text).dump(2) + "\n");
      out << fmt::format("{}: {} advisor{} written to {}\n", id, advisories.size(), advisories.size() == 1 ? "y" : "ies", osv_dir);
      return 0;
    }
    const auto history = *track::history_json(store, id);
    if (format == "json") {
      auto shown = history;
      if (breaking_only)
        for (auto& r : shown["revisions"]) {
          nlohmann::json kept = nlohmann::json::array();
          for (auto& c : r["changes"])
            if (c["breaking"].get<bool>()) kept.push_back(c);
          r["changes"] = kept;
        }
      out << shown.dump(2) << "\n";
    } else {
      out << (format == "markdown" ? track::history_markdown(history, breaking_only) : track::history_text(history, breaking_only));
    }
    out << std::flush;
    return 0;
  });
}

}  // namespace neurarch::cli
