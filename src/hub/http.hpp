#pragma once
// libcurl behind a batch interface: a set of GETs runs at once over one multi handle (HTTP/2
// multiplexes them), each retried with back-off on 429, 5xx and transport failures. A batch of
// a hundred shard headers therefore costs about one round trip, not a hundred.
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hub/settings.hpp"

namespace neurarch::hub {

class Progress;

struct ByteRange {
  std::uint64_t first = 0, last = 0;  // inclusive, as "Range: bytes=first-last" writes it
};

struct Request {
  std::string url;
  std::optional<ByteRange> range;
  std::uint64_t max_body = 0;  ///< a longer body stops the transfer and sets Response::too_large
  bool send_token = true;      ///< off for URLs outside the endpoint (a CDN must not see the token)
};

using Headers = std::vector<std::pair<std::string, std::string>>;  // names lowercase

struct Response {
  long status = 0;     ///< of the last hop
  int curl_code = 0;   ///< CURLcode of the transfer; 0 when it worked
  std::string curl_error;
  std::string body;    ///< for a Range request: exactly the requested bytes, even if the server sent all
  bool too_large = false;
  int attempts = 0;
  std::string effective_url;  ///< after redirects: where the bytes really came from
  std::vector<Headers> hops;  ///< one per response, redirects included

  bool ok() const { return curl_code == 0 && !too_large && status >= 200 && status < 300; }
  /// The first hop that has the header: the Hub's own answer comes before a CDN's.
  std::optional<std::string> header(std::string_view name) const;
  std::optional<std::string> final_header(std::string_view name) const;
  /// Size of the whole file: Content-Range's total, else X-Linked-Size, else Content-Length of a 200.
  std::optional<std::uint64_t> file_size() const;
};

class HttpClient {
 public:
  HttpClient(const Settings& settings, Progress& progress);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// Runs all requests in parallel; responses in request order. Never throws for HTTP or network
  /// failures: callers turn them into messages that know which file was wanted.
  std::vector<Response> get_all(const std::vector<Request>& requests);
  Response get(const Request& request);

 private:
  void run_batch(const std::vector<Request>& requests, const std::vector<std::size_t>& which,
                 std::vector<Response>& out);
  struct Multi;
  const Settings& settings_;
  Progress& progress_;
  std::unique_ptr<Multi> multi_;  // kept across batches so connections are reused
};

/// How long to wait before retrying, or nullopt when retrying cannot help.
std::optional<std::chrono::milliseconds> retry_delay(const Response& response, int attempt,
                                                     const NetworkPolicy& policy);

/// Retry-After in seconds; the HTTP-date form is not used by the Hub and reads as absent.
std::optional<std::chrono::seconds> retry_after(const Response& response);

/// "scheme://host[:port]" of a URL, for deciding whether the token may go there.
std::string origin_of(std::string_view url);

/// Percent-encodes everything outside RFC 3986's unreserved set; '/' too unless keep_slash.
std::string url_encode(std::string_view text, bool keep_slash);

}  // namespace neurarch::hub
