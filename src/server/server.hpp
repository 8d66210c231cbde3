#pragma once
// `neurarch-trace serve`: one process serving the model pages, their twins, the JSON API and
// shared reports, with the limits a public server needs (see ServerOptions).
#include <memory>

#include "server/context.hpp"
#include "server/options.hpp"

namespace httplib {
class Server;
}

namespace neurarch::server {

class Server {
 public:
  /// Opens (and migrates) the database; throws neurarch::Error when it cannot.
  explicit Server(ServerOptions options, ChangeHistoryProvider changes = {});
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// Binds options.host:options.port (port 0: any free one) and returns the port; throws
  /// neurarch::Error (Io) when the address cannot be bound.
  int bind();
  /// Serves until stop(); call bind() first.
  void run();
  void stop();
  /// True once run() accepts connections.
  bool running() const;

  ServerContext& context() { return *context_; }

 private:
  ServerOptions options_;
  std::unique_ptr<ReportService> reports_;
  std::unique_ptr<ShareStore> shares_;
  std::unique_ptr<RateLimiter> limiter_;
  std::unique_ptr<ChangeService> changes_;
  std::unique_ptr<ServerContext> context_;
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace neurarch::server
