#include "hub/http.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "hub/progress.hpp"

namespace neurarch::hub {
namespace {

// Error bodies are read for nothing but a hint; the rest is discarded, not kept.
constexpr std::size_t kMaxErrorBody = 4096;
constexpr long kMaxRedirects = 5;  // resolve -> CDN is one; a renamed repo adds one
constexpr int kPollMs = 200;       // wake-up bound; transfers end by their own timeouts

std::string lowercase(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  return out;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  s = trim(s);
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return value;
}

void global_init() {
  // curl_global_init is not thread-safe in older libcurl; once per process is what it wants.
  static std::once_flag once;
  std::call_once(once, [] {
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) throw Error(ErrorKind::Io, "libcurl", "initialisation failed");
  });
}

// State of one transfer; curl's callbacks get a pointer to it.
struct Transfer {
  const Request* request = nullptr;
  Response* response = nullptr;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::array<char, CURL_ERROR_SIZE> error{};
  std::optional<std::uint64_t> limit;  // decided at the first body byte, when the status is known
  bool full_body_for_range = false;    // the server ignored Range and sends the file from byte 0
  bool got_enough = false;             // we stopped a transfer that already holds what we want

  Transfer() = default;
  Transfer(const Transfer&) = delete;
  Transfer& operator=(const Transfer&) = delete;
  ~Transfer() {
    if (easy != nullptr) curl_easy_cleanup(easy);
    if (headers != nullptr) curl_slist_free_all(headers);
  }

  void decide_limit() {
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    response->status = status;
    if (status >= 300) {
      limit = kMaxErrorBody;
    } else if (request->range && status == 200) {
      full_body_for_range = true;
      limit = request->range->last + 1;
    } else {
      limit = request->max_body;
    }
  }
};

std::size_t on_body(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  if (!t.limit) t.decide_limit();
  std::string& body = t.response->body;
  const std::uint64_t room = *t.limit > body.size() ? *t.limit - body.size() : 0;
  body.append(data, static_cast<std::size_t>(std::min<std::uint64_t>(room, n)));
  if (n <= room) return n;
  if (t.response->status >= 300) return n;  // discard the rest of an error page
  if (t.full_body_for_range) {
    t.got_enough = true;  // the bytes we asked for are in; do not download the weights
  } else {
    t.response->too_large = true;
  }
  return 0;  // aborts the transfer
}

std::size_t on_header(char* data, std::size_t size, std::size_t count, void* user) {
  auto& t = *static_cast<Transfer*>(user);
  const std::size_t n = size * count;
  const std::string_view line(data, n);
  auto& hops = t.response->hops;
  if (line.starts_with("HTTP/")) {
    hops.emplace_back();
  } else if (const auto colon = line.find(':'); colon != std::string_view::npos && !hops.empty()) {
    hops.back().emplace_back(lowercase(trim(line.substr(0, colon))), std::string(trim(line.substr(colon + 1))));
  }
  return n;
}

void set(CURL* easy, CURLoption option, long value) { curl_easy_setopt(easy, option, value); }

void configure(Transfer& t, const Settings& settings) {
  CURL* easy = t.easy;
  const NetworkPolicy& net = settings.network;
  curl_easy_setopt(easy, CURLOPT_URL, t.request->url.c_str());
  set(easy, CURLOPT_HTTPGET, 1L);
  set(easy, CURLOPT_NOSIGNAL, 1L);  // timeouts must not raise SIGALRM in a host program
  set(easy, CURLOPT_FOLLOWLOCATION, 1L);
  set(easy, CURLOPT_MAXREDIRS, kMaxRedirects);
#if LIBCURL_VERSION_NUM >= 0x075500
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#endif
  set(easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(net.connect_timeout.count()));
  set(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(net.request_timeout.count()));
  // A stalled server is a read timeout: under 1 byte/s for the whole window.
  set(easy, CURLOPT_LOW_SPEED_LIMIT, 1L);
  set(easy, CURLOPT_LOW_SPEED_TIME, std::max(1L, static_cast<long>(net.stall_timeout.count() / 1000)));
  set(easy, CURLOPT_PIPEWAIT, 1L);  // wait to multiplex on HTTP/2 rather than open a connection per shard
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, t.error.data());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(easy, CURLOPT_USERAGENT, "neurarch/0.1 (+libcurl)");
  if (t.request->range) {
    const std::string range = fmt::format("{}-{}", t.request->range->first, t.request->range->last);
    curl_easy_setopt(easy, CURLOPT_RANGE, range.c_str());  // libcurl copies option strings
  }
  // libcurl (>= 7.58) drops a custom Authorization header when a redirect leaves the host, so
  // the token reaches the Hub but never the CDN that serves LFS files.
  if (!settings.token.empty() && t.request->send_token) {
    t.headers = curl_slist_append(t.headers, ("Authorization: Bearer " + settings.token).c_str());
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, t.headers);
  }
}

void finish(Transfer& t, CURLcode code) {
  Response& r = *t.response;
  long status = 0;
  curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &status);
  r.status = status;
  if (const char* url = nullptr; curl_easy_getinfo(t.easy, CURLINFO_EFFECTIVE_URL, &url) == CURLE_OK && url != nullptr) {
    r.effective_url = url;
  }
  const bool our_abort = code == CURLE_WRITE_ERROR && (t.got_enough || r.too_large);
  if (code != CURLE_OK && !our_abort) {
    r.curl_code = static_cast<int>(code);
    r.curl_error = t.error[0] != '\0' ? std::string(t.error.data()) : std::string(curl_easy_strerror(code));
  }
  if (t.full_body_for_range && r.status < 300) {
    const std::uint64_t first = t.request->range->first;
    r.body = first < r.body.size() ? r.body.substr(static_cast<std::size_t>(first)) : std::string();
  }
}

bool transient(int curl_code) {
  switch (static_cast<CURLcode>(curl_code)) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

}  // namespace

struct HttpClient::Multi {
  CURLM* handle = nullptr;
  Multi() {
    global_init();
    handle = curl_multi_init();
    if (handle == nullptr) throw Error(ErrorKind::Io, "libcurl", "cannot create a transfer handle");
  }
  ~Multi() { curl_multi_cleanup(handle); }
  Multi(const Multi&) = delete;
  Multi& operator=(const Multi&) = delete;
};

std::optional<std::string> Response::header(std::string_view name) const {
  for (const auto& hop : hops) {
    for (const auto& [key, value] : hop) {
      if (key == name) return value;
    }
  }
  return std::nullopt;
}

std::optional<std::string> Response::final_header(std::string_view name) const {
  if (hops.empty()) return std::nullopt;
  for (const auto& [key, value] : hops.back()) {
    if (key == name) return value;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> Response::file_size() const {
  if (const auto range = final_header("content-range")) {
    if (const auto slash = range->rfind('/'); slash != std::string::npos) {
      if (auto total = parse_u64(std::string_view(*range).substr(slash + 1))) return total;
    }
  }
  if (const auto linked = header("x-linked-size")) {
    if (auto size = parse_u64(*linked)) return size;
  }
  if (status == 200) {
    if (const auto length = final_header("content-length")) return parse_u64(*length);
  }
  return std::nullopt;
}

std::optional<std::chrono::seconds> retry_after(const Response& response) {
  const auto value = response.final_header("retry-after");
  if (!value) return std::nullopt;
  const auto seconds = parse_u64(*value);
  if (!seconds || *seconds > 86'400) return std::nullopt;
  return std::chrono::seconds(static_cast<long long>(*seconds));
}

std::optional<std::chrono::milliseconds> retry_delay(const Response& response, int attempt,
                                                     const NetworkPolicy& policy) {
  const bool server_busy = response.curl_code == 0 &&
                           (response.status == 429 || response.status == 500 || response.status == 502 ||
                            response.status == 503 || response.status == 504);
  if (!server_busy && !(response.curl_code != 0 && transient(response.curl_code))) return std::nullopt;
  if (server_busy) {
    if (const auto after = retry_after(response)) return std::chrono::milliseconds(*after);
  }
  auto delay = policy.backoff_first;
  for (int i = 1; i < attempt && delay < policy.backoff_max; ++i) delay *= 2;
  return std::min(delay, policy.backoff_max);
}

std::string origin_of(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  return std::string(url.substr(0, url.find('/', scheme + 3)));
}

std::string url_encode(std::string_view text, bool keep_slash) {
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += c;
    } else {
      out += fmt::format("%{:02X}", byte);
    }
  }
  return out;
}

HttpClient::HttpClient(const Settings& settings, Progress& progress)
    : settings_(settings), progress_(progress), multi_(std::make_unique<Multi>()) {
  curl_multi_setopt(multi_->handle, CURLMOPT_MAX_HOST_CONNECTIONS, settings.network.max_connections);
}

HttpClient::~HttpClient() = default;

Response HttpClient::get(const Request& request) { return std::move(get_all({request}).front()); }

std::vector<Response> HttpClient::get_all(const std::vector<Request>& requests) {
  std::vector<Response> out(requests.size());
  std::vector<std::size_t> pending(requests.size());
  for (std::size_t i = 0; i < pending.size(); ++i) pending[i] = i;
  const NetworkPolicy& net = settings_.network;
  for (int attempt = 1; !pending.empty(); ++attempt) {
    run_batch(requests, pending, out);
    std::vector<std::size_t> again;
    std::chrono::milliseconds wait{0};
    for (const std::size_t i : pending) {
      out[i].attempts = attempt;
      if (const auto delay = retry_delay(out[i], attempt, net)) {
        again.push_back(i);
        wait = std::max(wait, *delay);
      }
    }
    // Past the bound the caller reports the wait the server asked for instead of sleeping it.
    if (again.empty() || attempt >= net.max_attempts || wait > net.retry_after_max) break;
    const Response& sample = out[again.front()];
    progress_.waiting(wait, sample.curl_code != 0 ? std::string("network error") : fmt::format("HTTP {}", sample.status));
    std::this_thread::sleep_for(wait);
    pending = std::move(again);
  }
  return out;
}

void HttpClient::run_batch(const std::vector<Request>& requests, const std::vector<std::size_t>& which,
                           std::vector<Response>& out) {
  CURLM* multi = multi_->handle;
  std::vector<std::unique_ptr<Transfer>> transfers;
  transfers.reserve(which.size());
  for (const std::size_t i : which) {
    auto t = std::make_unique<Transfer>();
    out[i] = Response{};
    t->request = &requests[i];
    t->response = &out[i];
    t->easy = curl_easy_init();
    if (t->easy == nullptr) throw Error(ErrorKind::Io, "libcurl", "cannot create a transfer handle");
    configure(*t, settings_);
    transfers.push_back(std::move(t));
  }
  // Handles leave the multi before they are freed, whatever happens below.
  struct Detach {
    CURLM* multi;
    std::vector<std::unique_ptr<Transfer>>& list;
    ~Detach() {
      for (auto& t : list) curl_multi_remove_handle(multi, t->easy);
    }
  } detach{multi, transfers};
  for (auto& t : transfers) curl_multi_add_handle(multi, t->easy);

  int running = 0;
  do {
    const CURLMcode mc = curl_multi_perform(multi, &running);
    if (mc != CURLM_OK) throw Error(ErrorKind::Io, "libcurl", curl_multi_strerror(mc));
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued)) {
      if (msg->msg != CURLMSG_DONE) continue;
      for (auto& t : transfers) {
        if (t->easy != msg->easy_handle) continue;
        finish(*t, msg->data.result);
        progress_.transfer_done(t->response->status < 300 ? t->response->body.size() : 0);
      }
    }
    if (running > 0) curl_multi_poll(multi, nullptr, 0, kPollMs, nullptr);
  } while (running > 0);
}

}  // namespace neurarch::hub
