#include "cli/cli.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "core/error.hpp"
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
};

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

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err, std::istream& in) {
  CLI::App app{"neurarch-trace: a Hugging Face model's layer graph, tensors and checks, from its config.json alone",
               "neurarch-trace"};
  Args a;
  app.add_option("model", a.model,
                 "org/name[@revision] (local HF cache, then the bundled catalogue), a config.json or model folder, "
                 "or - for stdin")
      ->required();
  app.add_option("--format,-f", a.format, "text | json | markdown")
      ->check(CLI::IsMember({"text", "json", "markdown"}));
  app.add_option("--class", a.class_name, "model class to build (default: architectures[0], else the base class)");
  app.add_option("--revision", a.revision, "branch, tag or commit in the local Hugging Face cache");
  app.add_option("--seq", a.seq, "sequence length for text models (default: max positions, capped at 2048)");
  app.add_option("--image-size", a.image_size, "image side in pixels for vision models (default: the config's)");
  app.add_option("--checkpoint", a.checkpoint, "safetensors file or folder to compare against (headers only)");
  app.add_flag("--no-checkpoint", a.no_checkpoint, "do not read checkpoint headers even when present");
  app.add_flag("--tensors", a.tensors, "list every tensor in the text report");
  app.add_flag("--offline", a.offline, "never use the network");
  app.add_option("--output,-o", a.output, "write the report to this file (atomically) instead of stdout");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }

  try {
    resolve::ResolveOptions ro;
    ro.stdin_stream = &in;
    ro.revision = a.revision;
    ro.offline = a.offline || std::getenv("HF_HUB_OFFLINE") != nullptr;
    auto model = resolve::resolve(a.model, ro);

    report::TraceOptions to;
    to.build.class_name = a.class_name;
    to.build.seq = a.seq;
    to.build.image_size = a.image_size;
    to.read_checkpoint = !a.no_checkpoint;
    if (!a.checkpoint.empty()) to.checkpoint = fs::path(a.checkpoint);
    auto r = report::trace(model, to);

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
