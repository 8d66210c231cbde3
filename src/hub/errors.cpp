#include "hub/errors.hpp"

#include <curl/curl.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace neurarch::hub {
namespace {

std::string where(const FetchContext& ctx) { return ctx.repo + "@" + ctx.revision; }

// Server-supplied text goes into a one-line message: no control bytes, bounded length.
std::string printable(const std::string& text, std::size_t max_bytes = 160) {
  std::string out;
  for (const char c : text.substr(0, max_bytes)) {
    const auto byte = static_cast<unsigned char>(c);
    out += (byte < 0x20 || byte == 0x7f) ? ' ' : c;
  }
  return text.size() > max_bytes ? out + "..." : out;
}

std::string hub_says(const Response& r) {
  const auto message = r.header("x-error-message");
  return message ? fmt::format(" (the Hub says: {})", printable(*message)) : std::string();
}

[[noreturn]] void network_down(const Response& r, const FetchContext& ctx) {
  const auto& s = *ctx.settings;
  const bool timed_out = r.curl_code == CURLE_OPERATION_TIMEDOUT;
  throw Error(ErrorKind::Io, where(ctx),
              fmt::format("cannot reach the Hub at {} while fetching {}: {}{} after {} attempt(s); {}", s.endpoint,
                          ctx.file, timed_out ? "timed out: " : "", printable(r.curl_error), r.attempts,
                          ctx.cache_note));
}

[[noreturn]] void rate_limited(const Response& r, const FetchContext& ctx) {
  const auto after = retry_after(r);
  const std::string wait = after ? fmt::format("it asks to wait {} s", after->count()) : "no Retry-After given";
  const std::string token_hint =
      ctx.settings->token.empty() ? "; requests with a token (HF_TOKEN) get a higher limit" : "";
  throw Error(ErrorKind::Io, where(ctx),
              fmt::format("rate-limited by the Hub (HTTP 429) while fetching {} after {} attempt(s), {}; try again "
                          "later{}",
                          ctx.file, r.attempts, wait, token_hint));
}

[[noreturn]] void gated(const Response& r, const FetchContext& ctx) {
  const auto& s = *ctx.settings;
  if (s.token.empty()) {
    throw Error(ErrorKind::NotFound, where(ctx),
                fmt::format("gated model: accept its terms at {}/{} and set HF_TOKEN (or put a token in "
                            "$HF_HOME/token) to a token of that account",
                            s.endpoint, ctx.repo));
  }
  throw Error(ErrorKind::NotFound, where(ctx),
              fmt::format("gated model: the token was refused (HTTP {}){}; accept the terms at {}/{} with the "
                          "account HF_TOKEN belongs to, or use a token with read access",
                          r.status, hub_says(r), s.endpoint, ctx.repo));
}

}  // namespace

Failure check(const Response& r, const FetchContext& ctx) {
  if (r.curl_code != 0) {
    if (r.curl_code == CURLE_TOO_MANY_REDIRECTS || r.curl_code == CURLE_UNSUPPORTED_PROTOCOL) {
      throw Error(ErrorKind::Io, where(ctx), fmt::format("bad redirect while fetching {}: {}", ctx.file, printable(r.curl_error)));
    }
    network_down(r, ctx);
  }
  if (r.too_large) {
    throw Error(ErrorKind::InvalidInput, where(ctx),
                fmt::format("{} is larger than neurarch accepts for that file; refusing to download it", ctx.file));
  }
  if (r.status >= 200 && r.status < 300) return Failure::None;

  const std::string code = r.header("x-error-code").value_or("");
  if (code == "GatedRepo") gated(r, ctx);
  if (r.status == 429) rate_limited(r, ctx);
  if (code == "RevisionNotFound") {
    throw Error(ErrorKind::NotFound, where(ctx),
                fmt::format("revision '{}' not found on the Hub; give a branch, a tag or a full commit hash",
                            ctx.revision));
  }
  // A 404 that still names the commit comes from a repo and revision that exist.
  if (code == "EntryNotFound" || (r.status == 404 && code.empty() && r.header("x-repo-commit"))) {
    return Failure::EntryNotFound;
  }
  const bool has_token = !ctx.settings->token.empty();
  if (r.status == 401 && has_token && code != "RepoNotFound") {
    throw Error(ErrorKind::InvalidInput, where(ctx),
                fmt::format("the Hub refused the token (HTTP 401){}; check HF_TOKEN or the token file", hub_says(r)));
  }
  if (code == "RepoNotFound" || r.status == 401 || r.status == 404) return Failure::RepoNotFound;
  if (r.status == 403) {
    throw Error(ErrorKind::NotFound, where(ctx),
                fmt::format("access denied (HTTP 403) to {}{}{}", ctx.file, hub_says(r),
                            has_token ? "; the token lacks read access to this repo" : "; set HF_TOKEN"));
  }
  if (r.status >= 500) {
    throw Error(ErrorKind::Io, where(ctx),
                fmt::format("the Hub answered HTTP {} for {} after {} attempt(s); try again later; {}", r.status,
                            ctx.file, r.attempts, ctx.cache_note));
  }
  throw Error(ErrorKind::Io, where(ctx), fmt::format("unexpected HTTP {} for {}{}", r.status, ctx.file, hub_says(r)));
}

}  // namespace neurarch::hub
