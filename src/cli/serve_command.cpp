#include "cli/serve_command.hpp"

#include <pthread.h>
#include <signal.h>

#include <filesystem>
#include <ostream>
#include <thread>

#include <CLI/CLI.hpp>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "server/server.hpp"
#include "track/store.hpp"

namespace neurarch::cli {

int run_serve_command(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"neurarch-trace serve: model pages, their markdown and JSON twins, badges, POST /api/v1/plan and "
               "shared reports, from the bundled catalogue and the local Hugging Face cache (never the network)",
               "neurarch-trace serve"};
  server::ServerOptions o;
  double per_minute = o.post_per_minute;
  std::string hub_cache;
  app.add_option("--host", o.host, "address to listen on (default 127.0.0.1)");
  app.add_option("--port", o.port, "port (default 8080; 0 picks a free one)")->check(CLI::Range(0, 65535));
  app.add_option("--db", o.db_path, "SQLite file for shared reports (default neurarch.db)");
  app.add_option("--threads", o.threads, "worker threads (default 8)")->check(CLI::Range(1, 256));
  app.add_option("--rate-limit", per_minute, "POST requests per minute per client address (default 30)")
      ->check(CLI::Range(0.0, 1e6));
  app.add_option("--cache-entries", o.cache_entries, "reports kept in memory (default 512)")->check(CLI::Range(1, 1 << 20));
  app.add_option("--hf-cache", hub_cache, "Hugging Face cache to serve from (default: HF_HUB_CACHE, HF_HOME/hub, ...)");
  app.add_option("--changes-db", o.changes_db,
                 "the change tracker's store to serve histories, advisories and /changes from "
                 "(default: the tracker's own, when it exists)");
  app.add_flag("--access-log", o.access_log, "one line per request on stderr");
  app.add_option("--request-tensors", o.budget.max_tensors, "graph nodes and tensors one request may build (default 262144)")
      ->check(CLI::Range(std::int64_t{64}, limits::kMaxTensors));
  app.add_option("--cache-tensors", o.budget.cache_units, "nodes and tensors of all cached reports (default 524288)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  o.post_per_minute = per_minute;
  o.budget.max_nodes = o.budget.max_tensors;
  if (!hub_cache.empty()) o.hub_cache = hub_cache;
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

}  // namespace neurarch::cli
