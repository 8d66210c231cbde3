#include "cli/track_command.hpp"

#include <filesystem>
#include <fstream>
#include <memory>
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

struct TrackArgs {
  std::string repo, id, ref = "HEAD", db_path, format = "text", progress = "auto";
};

int run_track(TrackArgs& args, std::ostream& out, std::ostream& err) {
  const std::string &repo = args.repo, &ref = args.ref, &db_path = args.db_path, &format = args.format,
                    &progress = args.progress;
  std::string& id = args.id;
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

struct ChangesArgs {
  std::string id, db_path, format = "text", osv_dir;
  bool breaking_only = false;
};

int run_changes(ChangesArgs& args, std::ostream& out, std::ostream& err) {
  const std::string &id = args.id, &db_path = args.db_path, &format = args.format, &osv_dir = args.osv_dir;
  const bool breaking_only = args.breaking_only;
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

}  // namespace

Command add_track_command(CLI::App& app) {
  auto* sub = app.add_subcommand("track", "follow a model repository's revisions and classify what each one changed");
  auto a = std::make_shared<TrackArgs>();
  sub->add_option("repo", a->repo, "a local clone (GIT_LFS_SKIP_SMUDGE=1 git clone ...) or org/name on the Hub")->required();
  sub->add_option("--id", a->id, "org/name to store the history under (default: from the clone's origin URL)");
  sub->add_option("--ref", a->ref, "branch, tag or commit to follow (default HEAD; on the Hub: main)");
  sub->add_option("--db", a->db_path, "change database (default: $NEURARCH_TRACK_DB or ~/.local/share/neurarch/changes.db)");
  sub->add_option("--format,-f", a->format, "text | json")->check(CLI::IsMember({"text", "json"}));
  sub->add_option("--progress", a->progress, "auto (on a terminal) | always | never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  return {sub, [a](std::ostream& out, std::ostream& err) { return run_track(*a, out, err); }};
}

Command add_changes_command(CLI::App& app) {
  auto* sub = app.add_subcommand("changes", "a tracked model's change history, or its OSV advisories");
  auto a = std::make_shared<ChangesArgs>();
  sub->add_option("model", a->id, "org/name as tracked")->required();
  sub->add_option("--db", a->db_path, "change database (default: $NEURARCH_TRACK_DB or ~/.local/share/neurarch/changes.db)");
  sub->add_option("--format,-f", a->format, "text | json | markdown")->check(CLI::IsMember({"text", "json", "markdown"}));
  sub->add_option("--osv", a->osv_dir, "write one OSV advisory JSON per breaking change into this folder");
  sub->add_flag("--breaking-only", a->breaking_only, "list breaking changes only");
  return {sub, [a](std::ostream& out, std::ostream& err) { return run_changes(*a, out, err); }};
}

}  // namespace neurarch::cli
