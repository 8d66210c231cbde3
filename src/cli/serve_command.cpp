#include "cli/serve_command.hpp"

#include <pthread.h>
#include <signal.h>

#include <filesystem>
#include <memory>
#include <ostream>
#include <thread>

#include <CLI/CLI.hpp>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "server/server.hpp"
#include "track/store.hpp"

namespace neurarch::cli {

namespace {
struct ServeArgs {
  server::ServerOptions o;
  double per_minute = server::ServerOptions{}.post_per_minute;
  std::string hub_cache;
};

int run_serve(ServeArgs& a, std::ostream& err) {
  server::ServerOptions& o = a.o;
  o.post_per_minute = a.per_minute;
  o.budget.max_nodes = o.budget.max_tensors;
  if (!a.hub_cache.empty()) o.hub_cache = a.hub_cache;
  if (o.changes_db.empty() && std::filesystem::exists(track::default_store_path()))
    o.changes_db = track::default_store_path();

  // Signals are taken by one thread with sigwait, so the server stops cleanly, not from a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  try {
    server::Server srv(o);
    const int port = srv.bind();
    err << "neurarch serve: listening on http://" << o.host << ":" << port << " (database " << o.db_path << ")\n"
        << std::flush;
    std::thread waiter([&] {
      int sig = 0;
      sigwait(&stop_signals, &sig);
      srv.stop();
    });
    srv.run();
    // run() also returns when the listener fails; wake the waiter so it can be joined.
    pthread_kill(waiter.native_handle(), SIGTERM);
    waiter.join();
    return 0;
  } catch (const Error& e) {
    err << "neurarch-trace: error: " << e.what() << "\n";
    return e.kind() == ErrorKind::Io ? 5 : 2;
  }
}

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "serve", "model pages, their markdown and JSON twins, badges, POST /api/v1/plan and shared reports, from the "
               "bundled catalogue and the local Hugging Face cache (never the network)");
  auto a = std::make_shared<ServeArgs>();
  server::ServerOptions& o = a->o;
  sub->add_option("--host", o.host, "address to listen on (default 127.0.0.1)");
  sub->add_option("--port", o.port, "port (default 8080; 0 picks a free one)")->check(CLI::Range(0, 65535));
  sub->add_option("--db", o.db_path, "SQLite file for shared reports (default neurarch.db)");
  sub->add_option("--threads", o.threads, "worker threads (default 8)")->check(CLI::Range(1, 256));
  sub->add_option("--rate-limit", a->per_minute, "POST requests per minute per client address (default 30)")
      ->check(CLI::Range(0.0, 1e6));
  sub->add_option("--cache-entries", o.cache_entries, "reports kept in memory (default 512)")->check(CLI::Range(1, 1 << 20));
  sub->add_option("--hf-cache", a->hub_cache, "Hugging Face cache to serve from (default: HF_HUB_CACHE, HF_HOME/hub, ...)");
  sub->add_option("--changes-db", o.changes_db,
                  "the change tracker's store to serve histories, advisories and /changes from "
                  "(default: the tracker's own, when it exists)");
  sub->add_flag("--access-log", o.access_log, "one line per request on stderr");
  sub->add_option("--request-tensors", o.budget.max_tensors, "graph nodes and tensors one request may build (default 262144)")
      ->check(CLI::Range(std::int64_t{64}, limits::kMaxTensors));
  sub->add_option("--cache-tensors", o.budget.cache_units, "nodes and tensors of all cached reports (default 524288)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  return {sub, [a](std::ostream&, std::ostream& err) { return run_serve(*a, err); }};
}

}  // namespace neurarch::cli
