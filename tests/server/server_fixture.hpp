#pragma once
// A real server on a free loopback port, with its own database and a tight set of limits, and a
// client for it. Tests talk HTTP to it exactly as a browser or curl would.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "server/server.hpp"

namespace neurarch::server::testing {

inline std::filesystem::path fresh_temp_dir(const std::string& tag) {
  static int counter = 0;
  auto dir = std::filesystem::temp_directory_path() /
             ("neurarch_server_" + tag + "_" + std::to_string(::getpid()) + "_" + std::to_string(++counter));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

class LiveServer {
 public:
  explicit LiveServer(ServerOptions options = test_options(), ChangeHistoryProvider changes = {},
                      std::filesystem::path dir = fresh_temp_dir("db"))
      : dir_(std::move(dir)) {
    options.host = "127.0.0.1";
    options.port = 0;
    if (options.db_path == ServerOptions{}.db_path) options.db_path = (dir_ / "neurarch.db").string();
    server_ = std::make_unique<Server>(options, std::move(changes));
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->run(); });
    for (int i = 0; i < 500 && !server_->running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ~LiveServer() {
    server_->stop();
    thread_.join();
  }

  /// Loose enough for the suite, tight enough that limits can be reached in a test.
  static ServerOptions test_options() {
    ServerOptions o;
    o.threads = 4;
    o.post_per_minute = 6000;
    o.post_burst = 1000;
    // No local cache unless a test makes one: answers must not depend on the machine.
    o.hub_cache = std::filesystem::temp_directory_path() / "neurarch_server_no_cache";
    return o;
  }

  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30);
    return c;
  }
  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  Server& server() { return *server_; }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::unique_ptr<Server> server_;
  int port_ = 0;
  std::thread thread_;
};

inline nlohmann::json body_json(const httplib::Result& res) { return nlohmann::json::parse(res->body); }

/// An error answer: the documented shape, and nothing of the server's file system in it.
inline void expect_json_error(const httplib::Result& res, int status, const std::string& code) {
  ASSERT_TRUE(res) << "no answer";
  EXPECT_EQ(res->status, status) << res->body;
  EXPECT_NE(res->get_header_value("Content-Type").find("application/json"), std::string::npos);
  const auto j = nlohmann::json::parse(res->body, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << res->body;
  ASSERT_TRUE(j.contains("error")) << res->body;
  EXPECT_EQ(j["error"]["code"], code) << res->body;
  EXPECT_TRUE(j["error"]["message"].is_string());
  for (const char* leak : {"/tmp", "/root", "/home", "/work", "/usr", ".cpp", "std::", "what()"})
    EXPECT_EQ(res->body.find(leak), std::string::npos) << leak << " in " << res->body;
}

inline std::string dinov2_small_config() {
  return R"({"model_type": "dinov2", "architectures": ["Dinov2Model"], "hidden_size": 384, "num_hidden_layers": 12,
  "num_attention_heads": 6, "mlp_ratio": 4, "image_size": 518, "patch_size": 14, "num_channels": 3,
  "layerscale_value": 1.0, "hidden_act": "gelu", "layer_norm_eps": 1e-06, "qkv_bias": true,
  "torch_dtype": "float32"})";
}

}  // namespace neurarch::server::testing
